import Foundation
import NALCore
import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One resource of a loopback origin.
struct CachedResource: RemoteService {
    let baseURL: URL
    var path: String { "cached" }
    var method: HTTPMethod { .get }
    var requestType: RequestType { .plain }
}

/// A 1 KiB JSON resource, fresh for a day, served on loopback by `LoopbackResponder`; three clients over one
/// transport (CurlTransport on Linux): without a cache, with a memory cache, with a folder cache.
final class CacheBench: Sendable {
    let resource: CachedResource
    let network: Client<CachedResource>
    let memory: Client<CachedResource>
    let directory: Client<CachedResource>
    /// A folder cache whose entries are never kept in memory: every hit reads its file.
    let directoryFromDisk: Client<CachedResource>
    private let responder: LoopbackResponder

    private init(responder: LoopbackResponder, transport: any Transport, folder: URL) throws {
        self.responder = responder
        guard let base = URL(string: "http://127.0.0.1:\(responder.port)") else { throw URLError(.badURL) }
        resource = CachedResource(baseURL: base)
        network = Client(transport: transport)
        memory = Client(middleware: [HTTPCache(storage: .memory(maximumBytes: 1 << 20))], transport: transport)
        directory = Client(
            middleware: [HTTPCache(storage: .directory(folder, maximumBytes: 1 << 20))], transport: transport)
        // A quarter of 3 KiB holds no entry in memory.
        directoryFromDisk = Client(
            middleware: [HTTPCache(storage: .directory(folder.appendingPathExtension("disk"), maximumBytes: 3 << 10))],
            transport: transport)
    }

    /// Made once, with every cache holding the resource.
    static let shared = Task { () throws -> CacheBench in
        let body = String(repeating: "a", count: 1024)
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=86400\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let responder = try LoopbackResponder(answer: Array((head + body).utf8))
        #if os(Linux)
            let transport: any Transport = try CurlTransport()
        #else
            let transport: any Transport = URLSessionTransport()
        #endif
        // One folder per run, emptied first; the previous runs' are removed too.
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix("nal-bench-cache-") {
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        let folder = temporary.appendingPathComponent("nal-bench-cache-\(getpid())")
        let bench = try CacheBench(responder: responder, transport: transport, folder: folder)
        for client in [bench.memory, bench.directory, bench.directoryFromDisk] {
            _ = try await client.request(bench.resource)
        }
        return bench
    }
}

extension Benchmark {
    static let cacheScenarios: [Benchmark] = [
        Benchmark(
            "cache.hit.memory",
            measures:
                "A call answered by HTTPCache's memory store (1 KiB, fresh): the target is under 10 % of a loopback round trip.",
            comparedWith: ["reference.cache.loopback"]
        ) { n in
            let bench = try await CacheBench.shared.value
            for _ in 0..<n { blackHole(try await bench.memory.request(bench.resource)) }
        },
        Benchmark(
            "cache.hit.directory",
            measures:
                "A call answered from HTTPCache's folder, its entry kept in memory as well (1 KiB): the target is under 50 % of a loopback round trip.",
            comparedWith: ["reference.cache.loopback"]
        ) { n in
            let bench = try await CacheBench.shared.value
            for _ in 0..<n { blackHole(try await bench.directory.request(bench.resource)) }
        },
        Benchmark(
            "cache.hit.directory.disk",
            measures:
                "A call answered from HTTPCache's folder with nothing kept in memory: the file read and its digest checked on every hit.",
            comparedWith: ["reference.cache.loopback"],
            // The hop to the folder's queue and back allocates a little more in some batches than in others.
            allocationTolerance: 3
        ) { n in
            let bench = try await CacheBench.shared.value
            for _ in 0..<n { blackHole(try await bench.directoryFromDisk.request(bench.resource)) }
        },
        .reference(
            "reference.cache.loopback",
            measures:
                "The same call without a cache: a round trip over CurlTransport to a loopback server that does nothing else."
        ) { n in
            let bench = try await CacheBench.shared.value
            for _ in 0..<n { blackHole(try await bench.network.request(bench.resource)) }
        },
    ]
}
