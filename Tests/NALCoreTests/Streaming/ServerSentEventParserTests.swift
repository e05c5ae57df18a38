import Foundation
import NALCore
import Testing

/// The WHATWG HTML standard's "event stream interpretation", case by case; every input is also fed in two chunks cut
/// at each byte, which must change nothing.
@Suite("ServerSentEventParser: the WHATWG event stream interpretation")
struct ServerSentEventParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let input: [UInt8]
        let events: [ServerSentEvent]
        var lastEventID = ""
        var reconnectionTime: Duration?

        init(
            _ name: String, _ text: String, _ events: [ServerSentEvent], lastEventID: String = "",
            reconnectionTime: Duration? = nil
        ) {
            self.init(
                name, bytes: Array(text.utf8), events, lastEventID: lastEventID, reconnectionTime: reconnectionTime)
        }

        init(
            _ name: String, bytes: [UInt8], _ events: [ServerSentEvent], lastEventID: String = "",
            reconnectionTime: Duration? = nil
        ) {
            self.name = name
            input = bytes
            self.events = events
            self.lastEventID = lastEventID
            self.reconnectionTime = reconnectionTime
        }

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case("one event", "data: hello\n\n", [ServerSentEvent(data: "hello")]),
        Case("data lines are joined with LF", "data: a\ndata: b\n\n", [ServerSentEvent(data: "a\nb")]),
        Case(
            "retry belongs to the event that set it; the reconnection time stays",
            "retry: 5\ndata: a\n\ndata: b\n\n",
            [ServerSentEvent(data: "a", retry: .milliseconds(5)), ServerSentEvent(data: "b")],
            reconnectionTime: .milliseconds(5)),
        Case("CRLF line endings", "data: a\r\ndata: b\r\n\r\n", [ServerSentEvent(data: "a\nb")]),
        Case("CR line endings", "data: a\rdata: b\r\r", [ServerSentEvent(data: "a\nb")]),
        Case(
            "mixed line endings", "data: x\rdata: y\n\r\ndata: z\r\n\n",
            [
                ServerSentEvent(data: "x\ny"), ServerSentEvent(data: "z"),
            ]),
        Case("a comment is ignored", ": keep-alive\ndata: x\n: another\n\n", [ServerSentEvent(data: "x")]),
        Case(
            "field names are case-sensitive", "Data: x\nDATA: y\nEvent: e\n\ndata: z\n\n", [ServerSentEvent(data: "z")]),
        Case(
            "one leading space is removed, not two", "data:  two\ndata:none\n\n", [ServerSentEvent(data: " two\nnone")]),
        Case("a field without a colon has an empty value", "data\n\n", [ServerSentEvent(data: "")]),
        Case("an empty data line adds an empty line", "data: a\ndata:\n\n", [ServerSentEvent(data: "a\n")]),
        Case("a colon in the value stays", "data: a:b: c\n\n", [ServerSentEvent(data: "a:b: c")]),
        Case("the event type", "event: add\ndata: 1\n\n", [ServerSentEvent(event: "add", data: "1")]),
        Case(
            "the event type resets after each event", "event: add\ndata: 1\n\ndata: 2\n\n",
            [
                ServerSentEvent(event: "add", data: "1"), ServerSentEvent(data: "2"),
            ]),
        Case("an empty event type is message", "event:\ndata: 1\n\n", [ServerSentEvent(data: "1")]),
        Case(
            "an id stays in force for later events", "id: 7\ndata: x\n\ndata: y\n\n",
            [ServerSentEvent(data: "x", lastEventID: "7"), ServerSentEvent(data: "y", lastEventID: "7")],
            lastEventID: "7"),
        Case(
            "an id containing NUL is ignored", "id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n",
            [ServerSentEvent(data: "a", lastEventID: "1"), ServerSentEvent(data: "b", lastEventID: "1")],
            lastEventID: "1"),
        Case(
            "an empty id resets the last event ID", "id: 1\ndata: a\n\nid\ndata: b\n\n",
            [ServerSentEvent(data: "a", lastEventID: "1"), ServerSentEvent(data: "b")]),
        Case(
            "retry sets the reconnection time", "retry: 2500\ndata: x\n\n",
            [ServerSentEvent(data: "x", retry: .milliseconds(2500))], reconnectionTime: .milliseconds(2500)),
        Case(
            "retry with anything but ASCII digits is ignored",
            "retry: 25x\ndata: a\n\nretry: -1\nretry: 1.5\nretry:  100\nretry:\ndata: b\n\n",
            [
                ServerSentEvent(data: "a"), ServerSentEvent(data: "b"),
            ]),
        Case(
            "a huge retry saturates", "retry: 99999999999999999999999999\n\n", [],
            reconnectionTime: .milliseconds(Int64.max)),
        Case(
            "an event with no data is not dispatched, but its id and retry count", "event: x\nid: 3\nretry: 10\n\n",
            [], lastEventID: "3", reconnectionTime: .milliseconds(10)),
        Case("an unterminated event is discarded", "data: a\n\ndata: b\n", [ServerSentEvent(data: "a")]),
        Case(
            "an unterminated event's id is not committed", "id: 1\ndata: a\n\nid: 2\ndata: b",
            [ServerSentEvent(data: "a", lastEventID: "1")], lastEventID: "1"),
        Case("a leading BOM is dropped", "\u{FEFF}data: x\n\n", [ServerSentEvent(data: "x")]),
        Case("only one BOM is dropped", "\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n", [ServerSentEvent(data: "y")]),
        Case("a BOM later is data", "data: \u{FEFF}x\n\n", [ServerSentEvent(data: "\u{FEFF}x")]),
        Case(
            "a BOM at the start of a later line is part of its field name", "data: x\n\u{FEFF}data: y\n\n",
            [ServerSentEvent(data: "x")]),
        Case(
            "invalid UTF-8 is replaced", bytes: Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8),
            [
                ServerSentEvent(data: "a\u{FFFD}\u{FFFD}b")
            ]),
        Case("multi-byte characters", "data: grüße 🙂\n\n", [ServerSentEvent(data: "grüße 🙂")]),
        Case("unknown fields are ignored", "foo: bar\ndata: x\nidx: 2\n\n", [ServerSentEvent(data: "x")]),
        Case("blank lines alone dispatch nothing", "\n\n\r\n\r\r", []),
        Case(
            "LLM-style deltas",
            "event: delta\ndata: {\"t\":\"Hel\"}\n\nevent: delta\ndata: {\"t\":\"lo\"}\n\nevent: done\ndata: [DONE]\n\n",
            [
                ServerSentEvent(event: "delta", data: #"{"t":"Hel"}"#),
                ServerSentEvent(event: "delta", data: #"{"t":"lo"}"#),
                ServerSentEvent(event: "done", data: "[DONE]"),
            ]),
    ]

    @Test("each case, whole and cut at every byte into two chunks", arguments: cases)
    func interpretation(_ example: Case) {
        for cut in 0...example.input.count {
            var parser = ServerSentEventParser()
            var events = parser.parse(Array(example.input[..<cut]))
            events += parser.parse(Data(example.input[cut...]))
            parser.finish()
            #expect(events == example.events, "cut at \(cut)")
            #expect(parser.lastEventID == example.lastEventID, "cut at \(cut)")
            #expect(parser.reconnectionTime == example.reconnectionTime, "cut at \(cut)")
        }
    }

    @Test("byte by byte, a CR ending one chunk and its LF starting the next are one line ending")
    func byteByByte() {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in Array("data: a\r\ndata: b\r\n\r\nid: 9\r\ndata: c\r\r".utf8) { events += parser.parse([byte]) }
        #expect(events == [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c", lastEventID: "9")])
    }

    @Test("after finish, a new stream starts: its BOM is dropped, its unterminated event forgotten, the last ID kept")
    func reconnection() {
        var parser = ServerSentEventParser()
        _ = parser.parse(Data("id: 4\ndata: one\n\nid: 5\ndata: cut".utf8))
        parser.finish()
        #expect(parser.lastEventID == "4")
        #expect(!parser.hasPendingEvent)
        let events = parser.parse(Data("\u{FEFF}data: two\n\n".utf8))
        // The ID survives the reconnection (web-platform-tests' last-event-id case): a later drop still resumes.
        #expect(events == [ServerSentEvent(data: "two", lastEventID: "4")])
        #expect(parser.lastEventID == "4")
    }

    @Test("a line or an event past the bound is dropped whole and counted, and memory stays bounded")
    func bounds() {
        var parser = ServerSentEventParser(maximumEventSize: 64)
        let long = String(repeating: "x", count: 100)
        var events = parser.parse(Data("data: \(long)\n\ndata: ok\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "ok")])
        #expect(parser.droppedEvents == 1)
        // Many short data lines that add up past the bound.
        events = parser.parse(Data((String(repeating: "data: 0123456789\n", count: 10) + "\ndata: after\n\n").utf8))
        #expect(events == [ServerSentEvent(data: "after")])
        #expect(parser.droppedEvents == 2)
        // A line that never ends is not kept.
        for _ in 0..<1000 { _ = parser.parse(Data(repeating: 0x41, count: 1000)) }
        events = parser.parse(Data("\n\ndata: end\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "end")])
    }

    @Test("an overlong comment, retry or unknown field is skipped; an overlong data, event or id drops its event")
    func overlongLinesByField() {
        let long = String(repeating: "x", count: 200)
        let skipped = [
            ":\(long)", ": \(long)", "retry: \(long)", "retry:\(String(repeating: "1", count: 200))",
            "unknown: \(long)", long, "\u{FEFF}:\(long)",
        ]
        for line in skipped {
            let input = Array("data: kept\n\(line)\ndata: too\n\n".utf8)
            // Whole, and cut at every byte: the start of the line decides, wherever the chunk ends.
            for cut in 0...input.count {
                var parser = ServerSentEventParser(maximumEventSize: 64)
                let events = parser.parse(Array(input[..<cut])) + parser.parse(Array(input[cut...]))
                #expect(events == [ServerSentEvent(data: "kept\ntoo")], "\(line.prefix(12)) cut at \(cut)")
                #expect(parser.droppedEvents == 0)
            }
        }
        for field in ["data", "event", "id"] {
            let input = Array("data: lost\n\(field): \(long)\n\ndata: next\n\n".utf8)
            for cut in 0...input.count {
                var parser = ServerSentEventParser(maximumEventSize: 64)
                let events = parser.parse(Array(input[..<cut])) + parser.parse(Array(input[cut...]))
                #expect(events == [ServerSentEvent(data: "next")], "\(field) cut at \(cut)")
                #expect(parser.droppedEvents == 1)
            }
        }
    }

    @Test(
        "encoded events parse back to themselves",
        arguments: [
            ServerSentEvent(data: "plain"), ServerSentEvent(event: "update", data: "a\nb\n", lastEventID: "42"),
            ServerSentEvent(data: "", retry: .milliseconds(1500)), ServerSentEvent(data: "cr\rlf\r\nend"),
            ServerSentEvent(data: " leading space"),
        ])
    func roundTrip(_ event: ServerSentEvent) {
        var parser = ServerSentEventParser()
        var expected = event
        expected.data = event.data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
            of: "\r", with: "\n")
        #expect(parser.parse(Data(event.encoded.utf8)) == [expected])
    }

    @Test("an encoded event drops CR and LF from its type and ID, and writes CRLF in data as one line break")
    func encodedSingleLineFields() {
        let event = ServerSentEvent(event: "up\rdate", data: "a\r\nb", lastEventID: "4\r2\n")
        #expect(event.encoded == "event: update\nid: 42\ndata: a\ndata: b\n\n")
    }
}
