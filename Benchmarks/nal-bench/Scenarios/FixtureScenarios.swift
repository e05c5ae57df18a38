import Foundation
import NALCore
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum FixtureBench {
    /// The real HAR exports in the test fixtures, found from this file so that any working directory works.
    static let harDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/NALStubbingTests/Fixtures/har")
    static let exports = ["firefox.har", "safari.har"].map { harDirectory.appendingPathComponent($0) }

    /// Each export's requests, to serve once per op.
    static let requests: [URLRequest] = exports.flatMap { file -> [URLRequest] in
        guard let data = try? Data(contentsOf: file),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entries = (root["log"] as? [String: Any])?["entries"] as? [[String: Any]]
        else { return [] }
        return entries.compactMap { entry in
            guard let request = entry["request"] as? [String: Any], let text = request["url"] as? String,
                let url = URL(string: text)
            else { return nil }
            var built = URLRequest(url: url)
            built.httpMethod = request["method"] as? String
            return built
        }
    }

    /// Loads both exports into a new server and serves every entry once; the number served.
    static func loadAndServe() throws -> Int {
        let server = StubServer()
        for file in exports { try server.loadHAR(from: file) }
        return requests.reduce(0) { $0 + (server.hasStub(for: $1) ? 1 : 0) }
    }

    /// A server with `count` `.tail` files, one per item path, written to a temporary directory once.
    static func tailServer(count: Int) -> StubServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-bench-tails-\(count)-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for index in 0..<count {
            let text =
                "GET\n/api/v1/items/\(index)/detail$\n200\nContent-Type: application/json\n\n{\"id\": \(index)}\n"
            try? Data(text.utf8).write(to: directory.appendingPathComponent("item-\(index).tail"))
        }
        let server = StubServer()
        _ = try? server.loadTails(from: directory)
        try? FileManager.default.removeItem(at: directory)
        return server
    }

    static let tenTails = tailServer(count: 10)
    static let thousandTails = tailServer(count: 1000)
    static let tailRequestAmongTen = URLRequest(
        url: URL(string: "https://api.example.com/api/v1/items/5/detail") ?? InstantResponder.url)
    static let tailRequestAmongThousand = URLRequest(
        url: URL(string: "https://api.example.com/api/v1/items/500/detail") ?? InstantResponder.url)
}

extension Benchmark {
    static let fixtureScenarios: [Benchmark] = [
        Benchmark(
            "fixtures.har",
            measures: "Loading the Firefox and Safari HAR exports (1.1 MB) and serving each entry once.",
            comparedWith: ["reference.fixtures.har.parse"],
            // JSONSerialization's count for 1.1 MB varies by a fraction of an allocation per load.
            allocationTolerance: 2
        ) { n in
            for _ in 0..<n { blackHole(try FixtureBench.loadAndServe()) }
        },
        .reference("reference.fixtures.har.parse", measures: "Parsing the same files with JSONSerialization only.") {
            n in
            for _ in 0..<n {
                for file in FixtureBench.exports {
                    blackHole(try JSONSerialization.jsonObject(with: try Data(contentsOf: file)))
                }
            }
        },
        Benchmark(
            "fixtures.tail.lookup", measures: "Finding one .tail fixture among 1,000 loaded files.",
            comparedWith: ["reference.fixtures.tail.lookup.10-files"]
        ) { n in
            for _ in 0..<n { blackHole(FixtureBench.thousandTails.hasStub(for: FixtureBench.tailRequestAmongThousand)) }
        },
        .reference("reference.fixtures.tail.lookup.10-files", measures: "Finding one .tail fixture among 10 files.") {
            n in
            for _ in 0..<n { blackHole(FixtureBench.tenTails.hasStub(for: FixtureBench.tailRequestAmongTen)) }
        },
    ]
}
