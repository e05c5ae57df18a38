#if os(Linux)
    import Foundation
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
