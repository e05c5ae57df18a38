#if os(Linux)
    import Foundation
    import FoundationNetworking
    @testable import NALCore
    import Testing

    /// Hostile status lines for `Response.reasonPhrase` over CurlTransport (issue 39).
    @Suite("CurlTransport: hostile reason phrases")
    struct CurlReasonPhraseTests {
        static func head(_ lines: [String]) -> CurlHead {
            var head = CurlHead()
            for line in lines {
                Array(line.utf8).withUnsafeBytes { head.take($0) }
            }
            return head
        }

        @Test("a long UTF-8 phrase cut at 256 bytes keeps its text: no mojibake when the cut splits a character")
        func cutKeepsUTF8() {
            // "a" and 200 × "é" (2 bytes each): the 256th byte is the first half of an "é".
            let phrase = "a" + String(repeating: "é", count: 200)
            let head = Self.head(["HTTP/1.1 200 \(phrase)\r\n", "\r\n"])
            #expect(head.reasonPhrase.hasPrefix("aéé"), "\(head.reasonPhrase.prefix(12))")
            #expect(!head.reasonPhrase.contains("Ã"), "\(head.reasonPhrase.prefix(12))")
        }

        @Test("interim heads with other phrases do not leak into the final one; tabs and bidi controls are dropped")
        func interimAndControls() {
            let head = Self.head([
                "HTTP/1.1 100 Continue-\u{1B}[31m\r\n", "\r\n", "HTTP/1.1 103 Early\r\n", "Link: </a>\r\n", "\r\n",
                "HTTP/1.1 200 \u{202E}Fine\tNow\u{9B}\r\n", "\r\n",
            ])
            #expect(head.statusCode == 200)
            #expect(head.reasonPhrase == "FineNow")
        }
    }
#endif
