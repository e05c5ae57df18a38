import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The .tail index gives the same answers as trying every stub")
struct TailIndexTests {
    @Test("alternation, groups and quantifiers next to a literal cannot hide a stub")
    func tricky() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let patterns = ["/users/42/x|/admins/7/y", "(/api/v1/a|/api/v2/b)$", "/items/?x", "/files/42*/z"]
        for (index, pattern) in patterns.enumerated() {
            try Data("GET\n\(pattern)\n200\n\n\(index)".utf8).write(
                to: directory.appendingPathComponent("\(index).tail"))
        }
        let server = StubServer()
        try server.loadTails(from: directory)
        let client = PlainClient(server)
        let base = "https://api.example.com"
        #expect(try await client.fetch(base + "/admins/7/y").body == "0")
        #expect(try await client.fetch(base + "/api/v2/b").body == "1")
        #expect(try await client.fetch(base + "/itemsx").body == "2")
        #expect(try await client.fetch(base + "/files/4/z").body == "3")
    }

    @Test("random patterns and URLs: the indexed lookup equals a linear scan, every time")
    func randomPatterns() throws {
        var generator = SeededGenerator(seed: 20_261_123)
        let pieces = ["api", "v1", "users", "42", "x", "items", "a.b", "Users", "7"]
        let operators = ["", "|", "(", ")", "?", "*", "+", ".", "[0-9]", "\\d", "$", "^", "{1,2}"]
        for _ in 0..<300 {
            var pattern = ""
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                pattern += "/" + pieces.randomElement(using: &generator)!
                if Bool.random(using: &generator) { pattern += operators.randomElement(using: &generator)! }
            }
            guard (try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive])) != nil else { continue }
            let server = StubServer()
            let tail = try TailFile(
                Data("GET\n\(pattern)\n200\n\nhit".utf8), file: URL(fileURLWithPath: "/random.tail"), placeholders: [:])
            let matcher = tail.matcher
            server.stub(matcher, response: .string("hit"))
            for _ in 0..<10 {
                var url = "https://h.example.com"
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    url += "/" + pieces.randomElement(using: &generator)!
                }
                guard let parsed = URL(string: url) else { continue }
                let request = RecordedRequest(method: "GET", url: parsed)
                let indexed = server.matchReport(for: request).answer != nil
                #expect(indexed == matcher.matches(request), "pattern \(pattern), URL \(url)")
            }
        }
    }
}
