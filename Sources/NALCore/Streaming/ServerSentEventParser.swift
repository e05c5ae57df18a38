public import Foundation

/// Parses a `text/event-stream` body into events, chunk by chunk, exactly as the WHATWG HTML standard's "event
/// stream interpretation" says.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for chunk in chunks { events += parser.parse(chunk) }
/// ```
///
/// - UTF-8 with replacement of invalid bytes; one byte-order mark at the very start is dropped.
/// - Lines end with LF, CRLF or CR, also when a CR ends one chunk and its LF starts the next.
/// - `:` starts a comment. Field names are case-sensitive (`data`, `event`, `id`, `retry`); one space after the
///   colon is removed. `data` lines are joined with LF. An `id` containing NUL is ignored. `retry` counts only when
///   it is all ASCII digits. An event with no data is not dispatched, but its `id` and `retry` still take effect.
/// - An event that is not ended by an empty line when the stream ends is discarded (call `finish()`).
///
/// Memory is bounded: an event with a `data`, `event` or `id` line longer than `maximumEventSize`, or whose data grows
/// past it, is dropped whole (never cut), and `droppedEvents` counts it. Overlong comments, `retry` lines and fields
/// the standard ignores are skipped without harm to the event, as the standard ignores them.
public struct ServerSentEventParser: Sendable {
    /// The default bound for one line and for one event's data: 8 MiB.
    public static let defaultMaximumEventSize = 8 << 20

    /// The last event ID string: set from the `id` fields each time an event is dispatched (with or without data),
    /// and what a reconnection sends as `Last-Event-ID`.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream last set with `retry:`, if any.
    public private(set) var reconnectionTime: Duration?
    /// Events dropped because a line or their data passed `maximumEventSize`.
    public private(set) var droppedEvents = 0
    /// The bound for one line and for one event's data, in bytes.
    public let maximumEventSize: Int
    /// How many events the last `parse` call had dispatched when it dropped its first event, or `nil` when it
    /// dropped none: the events a sequence delivers before it reports the drop.
    package private(set) var eventsBeforeFirstDrop: Int?

    private var lines: LineSplitter
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    /// The last event ID buffer: the last `id` field of this stream, committed to `lastEventID` at each dispatch.
    private var idBuffer = ""
    private var retry: Duration?
    private var atStart = true
    /// The event being built lost a line to the size bound: it is dropped when it would be dispatched.
    private var dropsEvent = false

    /// Creates a parser; `lastEventID` resumes a stream read before (after a restart, say): it is the ID events
    /// carry until the stream sets one.
    ///
    /// - Parameters:
    ///   - maximumEventSize: the bound for one line and for one event's data, in bytes; at least 1. A smaller value
    ///     is raised to 1, with a warning.
    ///   - lastEventID: the ID events carry until the stream sets one.
    public init(maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize, lastEventID: String = "") {
        self.maximumEventSize = SettingClamp.clamp(
            maximumEventSize, atLeast: 1, "ServerSentEventParser maximumEventSize", log: CoreLog.request)
        lines = LineSplitter(maximumLineLength: self.maximumEventSize)
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    /// The events that `chunk` completes, in order. Bytes of an unfinished line or event are kept for the next call.
    public mutating func parse(_ chunk: Data) -> [ServerSentEvent] {
        chunk.withUnsafeBytes { parse(bytes: $0) }
    }

    /// The events that `chunk` completes, in order. Bytes of an unfinished line or event are kept for the next call.
    public mutating func parse(_ chunk: [UInt8]) -> [ServerSentEvent] {
        chunk.withUnsafeBytes { parse(bytes: $0) }
    }

    /// Ends the stream: an event not ended by an empty line is discarded, as the standard says. The parser can then
    /// parse a new stream (a reconnection's): `lastEventID` and `reconnectionTime` stay, and the new stream's last
    /// event ID buffer starts from `lastEventID` (an `id` of the discarded event is forgotten), as browsers do and
    /// the web-platform tests require: an event without `id` after a reconnection keeps the ID, so a second
    /// reconnection still sends `Last-Event-ID` and nothing is delivered twice.
    public mutating func finish() {
        _ = lines.finish()
        resetEvent()
        idBuffer = lastEventID
        atStart = true
    }

    /// Whether part of an event has arrived and not been dispatched yet.
    public var hasPendingEvent: Bool { lines.hasPartialLine || hasData || eventType != nil || dropsEvent }

    package mutating func parse(bytes: UnsafeRawBufferPointer) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        eventsBeforeFirstDrop = nil
        var splitter = lines
        splitter.feed(bytes) { piece in
            switch piece {
            case .overlong(let start): skipOverlong(start)
            case .line(let line): process(line, into: &events)
            }
        }
        lines = splitter
        return events
    }

    /// A line too long to keep: the event it belongs to is dropped only when the line would have changed it.
    private mutating func skipOverlong(_ rawStart: UnsafeRawBufferPointer) {
        let start = withoutLeadingBOM(rawStart)
        if start.first == UInt8(ascii: ":") { return }
        // A field name runs up to the first colon; one longer than the start seen is no field the standard knows.
        guard let colon = start.firstIndex(of: UInt8(ascii: ":")) else { return }
        switch Field(UnsafeRawBufferPointer(rebasing: start[..<colon])) {
        case .data, .event, .id: dropsEvent = true
        case .retry, .other: break
        }
    }

    /// The line without the byte-order mark, when it is the stream's first line.
    private mutating func withoutLeadingBOM(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard atStart else { return line }
        atStart = false
        guard line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF else { return line }
        return UnsafeRawBufferPointer(rebasing: line[3...])
    }

    private mutating func process(_ rawLine: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) {
        let line = withoutLeadingBOM(rawLine)
        guard let first = line.first else { return dispatch(into: &events) }
        if first == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = UnsafeRawBufferPointer(rebasing: line[..<(colon ?? line.count)])
        var valueStart = colon.map { $0 + 1 } ?? line.count
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        switch Field(name) {
        case .data:
            if data.count + value.count + 1 > maximumEventSize {
                dropsEvent = true
                data.removeAll(keepingCapacity: false)
                return
            }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .id:
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case .retry:
            if let milliseconds = Self.digits(value) {
                retry = .milliseconds(milliseconds)
                reconnectionTime = retry
            }
        case .other:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer { resetEvent() }
        lastEventID = idBuffer
        if dropsEvent {
            droppedEvents += 1
            if eventsBeforeFirstDrop == nil { eventsBeforeFirstDrop = events.count }
            return
        }
        guard hasData else { return }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        events.append(
            ServerSentEvent(
                event: type, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID, retry: retry))
    }

    private mutating func resetEvent() {
        data.removeAll(keepingCapacity: data.capacity <= 64 << 10)
        hasData = false
        eventType = nil
        retry = nil
        dropsEvent = false
    }

    /// A base-ten number made only of ASCII digits, saturating at `Int64.max` milliseconds; `nil` otherwise.
    private static func digits(_ value: UnsafeRawBufferPointer) -> Int64? {
        guard !value.isEmpty else { return nil }
        var number: Int64 = 0
        for byte in value {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times, overflowTimes) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
            number = overflowTimes || overflowSum ? Int64.max : sum
        }
        return number
    }

    private enum Field {
        case data, event, id, retry, other

        init(_ name: UnsafeRawBufferPointer) {
            switch name.count {
            case 2 where name[0] == 0x69 && name[1] == 0x64: self = .id
            case 4 where name.elementsEqual("data".utf8): self = .data
            case 5 where name.elementsEqual("event".utf8): self = .event
            case 5 where name.elementsEqual("retry".utf8): self = .retry
            default: self = .other
            }
        }
    }
}
