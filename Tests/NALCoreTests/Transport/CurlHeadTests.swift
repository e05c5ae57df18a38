#if os(Linux)
    import Foundation
    import FoundationNetworking
    @testable import NALCore
    import Testing

    @Suite("CurlTransport: response heads as libcurl hands them over, line by line")
    struct CurlHeadTests {
        static let url = URL(fileURLWithPath: "/").deletingLastPathComponent()

        static func head(_ lines: [String]) -> CurlHead {
            var head = CurlHead()
            for line in lines {
                Array(line.utf8).withUnsafeBytes { head.take($0) }
            }
            return head
        }

        static func fields(_ head: CurlHead) -> [String: String] {
            let response = LazyHTTPResponse(head.responseHead(for: URL(string: "https://api.example.com/") ?? url))?
                .response
            var fields: [String: String] = [:]
            for case (let name as String, let value as String) in response?.allHeaderFields ?? [:] {
                fields[name] = value
            }
            return fields
        }

        @Test("an interim 100 Continue head is dropped; the final head is the response")
        func interimHeadDropped() {
            let head = Self.head([
                "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Location: /x\r\n", "\r\n",
            ])
            #expect(head.isComplete)
            #expect(head.statusCode == 201)
            #expect(Self.fields(head) == ["Location": "/x"])
        }

        @Test(
            "the reason phrase is kept as sent: the final head's, empty when none, control characters dropped, capped")
        func reasonPhrase() throws {
            let final = Self.head(["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created Now\r\n", "\r\n"])
            #expect(final.reasonPhrase == "Created Now")
            #expect(final.version == "HTTP/1.1")
            let http2 = Self.head(["HTTP/2 200\r\n", "\r\n"])
            #expect(http2.reasonPhrase == "")
            #expect(http2.version == "HTTP/2")
            let hostile = Self.head(["HTTP/1.1 200 \u{1B}[2JO\u{7}K\u{202E}\r\n", "\r\n"])
            #expect(hostile.reasonPhrase == "[2JOK")
            let long = Self.head(["HTTP/1.1 200 " + String(repeating: "x", count: 10_000) + "\r\n", "\r\n"])
            #expect(long.reasonPhrase.utf8.count == CurlHead.longestReasonPhrase)
            let response = Response(
                request: URLRequest(url: URL(string: "https://a.example/") ?? Self.url),
                head: try #require(
                    LazyHTTPResponse(final.responseHead(for: URL(string: "https://a.example/") ?? Self.url))),
                data: Data(), timing: ResponseTiming(start: Date(), duration: .zero))
            #expect(response.reasonPhrase == "Created Now")
            #expect(response.httpVersion == "HTTP/1.1")
        }

        @Test("a reason phrase that is not UTF-8 is read as ISO-8859-1, every byte kept")
        func reasonPhraseLatin1() {
            var head = CurlHead()
            [UInt8]("HTTP/1.1 200 Gr".utf8 + [0xFC] + "n\r\n".utf8).withUnsafeBytes { head.take($0) }
            #expect(head.reasonPhrase == "Gr\u{FC}n")
        }

        @Test("a repeated field's values are joined with a comma, as URLSession joins them")
        func repeatedFieldsJoined() {
            let head = Self.head([
                "HTTP/2 200\r\n", "vary: accept\r\n", "Vary: origin\r\n", "\r\n",
            ])
            #expect(Self.fields(head) == ["Vary": "accept, origin"])
        }

        @Test("lines after the final head (trailers, a second status line) change nothing")
        func linesAfterTheHeadIgnored() {
            let head = Self.head([
                "HTTP/1.1 206 Partial Content\r\n", "Content-Range: bytes 0-1/10\r\n", "\r\n",
                "HTTP/1.1 200 OK\r\n", "Content-Range: bytes 0-9/10\r\n", "\r\n",
            ])
            #expect(head.statusCode == 206)
            #expect(Self.fields(head) == ["Content-Range": "bytes 0-1/10"])
        }

        @Test("a line that looks like a status line inside a head is not one: the status stays, the line is dropped")
        func statusLineInsideAHead() {
            let head = Self.head([
                "HTTP/1.1 200 OK\r\n", "HTTP/1.1 302 :x\r\n", "Location: /elsewhere\r\n", "HTTP/1.1 100 :y\r\n",
                "\r\n",
            ])
            #expect(head.isComplete)
            #expect(head.statusCode == 200)
            #expect(Self.fields(head) == ["Location": "/elsewhere"])
        }

        @Test("a malformed first status line makes no response, whatever comes after it")
        func malformedStatusLine() {
            let head = Self.head(["HTTP/1.1 401: x\r\n", "HTTP/1.1 302 Found\r\n", "Location: /x\r\n", "\r\n"])
            #expect(head.statusCode == 0)
            #expect(!head.isComplete)
        }

        @Test("a single-valued field sent twice with the same value is kept once; a list field is joined")
        func repeatedSingleValuedFields() {
            let head = Self.head([
                "HTTP/1.1 302 Found\r\n", "Content-Length: 6\r\n", "content-length: 6\r\n", "Location: /a\r\n",
                "Location: /a\r\n", "Vary: a\r\n", "Vary: a\r\n", "\r\n",
            ])
            #expect(Self.fields(head) == ["Content-Length": "6", "Location": "/a", "Vary": "a, a"])
            let conflicting = Self.head(["HTTP/1.1 302 Found\r\n", "Location: /a\r\n", "Location: /b\r\n", "\r\n"])
            #expect(Self.fields(conflicting) == ["Location": "/a, /b"])
        }

        @Test("a value that is not UTF-8 is read as ISO-8859-1, a Location's bytes percent-encoded")
        func latin1Values() {
            var head = CurlHead()
            for line in [
                Array("HTTP/1.1 302 Found\r\n".utf8), Array("X-Latin: caf".utf8) + [0xE9] + Array("\r\n".utf8),
                Array("Location: /d".utf8) + [0xE9] + Array("\r\n".utf8), Array("X-UTF8: café\r\n".utf8),
                Array("\r\n".utf8),
            ] {
                line.withUnsafeBytes { head.take($0) }
            }
            #expect(Self.fields(head) == ["X-Latin": "caf\u{E9}", "Location": "/d%E9", "X-UTF8": "café"])
        }

        @Test("a CR, LF or NUL inside a value becomes a space, as RFC 9110 says, so no caller sees a line break")
        func controlBytesInValues() {
            let head = Self.head(["HTTP/1.1 200 OK\r\n", "X-Split: a\rInjected: 1\r\n", "X-Nul: b\u{0}c\r\n", "\r\n"])
            #expect(Self.fields(head) == ["X-Split": "a Injected: 1", "X-Nul": "b c"])
        }

        @Test("Content-Length merged from repeats of one number is that number; anything else is none")
        func mergedContentLength() {
            #expect(SessionDelegate.length(of: "6") == 6)
            #expect(SessionDelegate.length(of: "6, 6") == 6)
            #expect(SessionDelegate.length(of: "6,6, 6") == 6)
            #expect(SessionDelegate.length(of: "6, 7") == nil)
            #expect(SessionDelegate.length(of: "-1") == nil)
            #expect(SessionDelegate.length(of: "") == nil)
            #expect(SessionDelegate.length(of: "6,") == nil)
        }

        @Test("an obsolete folded line continues the field before it")
        func foldedLine() {
            let head = Self.head(["HTTP/1.1 200 OK\r\n", "X-Long: one\r\n", "  two\r\n", "\r\n"])
            #expect(Self.fields(head) == ["X-Long": "one two"])
        }

        @Test(
            "cookie paths match as RFC 6265 says",
            arguments: [
                ("/a/b", "/", true), ("/a/b", "/a", true), ("/a/b", "/a/", true), ("/a/b", "/a/b", true),
                ("/ab", "/a", false), ("/a", "/a/b", false), ("/", "/a", false),
            ])
        func cookiePaths(path: String, cookiePath: String, matches: Bool) {
            #expect(CurlTransport.pathMatches(path, cookiePath: cookiePath) == matches)
        }
    }
#endif
