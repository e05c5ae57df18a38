import Foundation
import NALCore
import NALLogging
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench transfer <mode> ...`: one big transfer through `Client`, reported as JSON with its peak RSS growth and
/// throughput, for `scripts/transfer-bench.sh`.
///
/// - `upload URL FILE` and `multipart URL FILE`: PUT the file, or POST it as one multipart part.
/// - `download URL DESTINATION`: download to a file.
/// - `stub-download FILE DESTINATION`: download a `.file` stub served by `StubServer` through NAL's transport.
/// - `throughput URL DESTINATION ROUNDS`: downloads to disk through NAL, and with a bare URLSession data task whose
///   delegate only counts bytes, in interleaved rounds; reports each one's MB/s and NAL's ratio.
/// - `stream URL MBPS`: reads the body through `Client.stream` with a consumer that takes at most MBPS megabytes a
///   second (slower than the server): what it has not taken waits on disk, and peak RSS growth stays bounded.
/// - `stream-throughput URL ROUNDS`: `Client.stream` with a consumer that only counts bytes, against the bare data
///   task, in interleaved rounds.
/// - `bare URL`: the bare data task alone, whose delegate only counts bytes: the peak RSS growth that URLSession
///   itself brings to a transfer of that size, for comparison.
/// - `curl-download URL DESTINATION ROUNDS` and `curl-upload URL FILE ROUNDS` (Linux): Client over CurlTransport
///   against the curl CLI (see `CurlReferenceProbe`).
///
/// With `NAL_BENCH_TRANSPORT=curl`, upload, multipart and download go through CurlTransport.
enum TransferProbe {
    struct Target: RemoteService {
        var baseURL: URL
        var method: HTTPMethod
        var requestType: RequestType
        var path: String { "" }
        var timeout: TimeInterval? { 600 }
    }

    struct Report: Encodable {
        var mode: String
        var bytes: Int64
        var seconds: Double
        var megabytesPerSecond: Double
        var peakGrowthBytes: Int
        var outcome: String
    }

    struct ThroughputReport: Encodable {
        var bytes: Int64
        var nalMegabytesPerSecond: [Double]
        var bareMegabytesPerSecond: [Double]
        /// NAL's median throughput over the bare task's.
        var ratio: Double
    }

    static let usage =
        "transfer upload|multipart URL FILE | download URL DESTINATION | "
        + "stub-download FILE DESTINATION | throughput URL DESTINATION ROUNDS | stream URL MBPS | "
        + "stream-throughput URL ROUNDS | bare URL | curl-download URL DESTINATION ROUNDS | curl-upload URL FILE ROUNDS"

    static func run(_ arguments: [String]) async throws(BenchOptions.UsageError) -> Int32 {
        if arguments.count == 2, arguments[0] == "bare", let url = URL(string: arguments[1]) {
            return await bare(url)
        }
        guard let mode = arguments.first, arguments.count >= 3 else { throw BenchOptions.UsageError(message: usage) }
        if mode == "stream" || mode == "stream-throughput" {
            guard arguments.count == 3, let url = URL(string: arguments[1]), let number = Int(arguments[2]), number > 0
            else { throw BenchOptions.UsageError(message: usage) }
            return mode == "stream"
                ? await StreamProbe.slowConsumer(url, megabytesPerSecond: number)
                : await StreamProbe.throughput(url, rounds: number)
        }
        let first = arguments[1]
        let second = URL(fileURLWithPath: arguments[2])
        guard let url = URL(string: first) else { throw BenchOptions.UsageError(message: "'\(first)' is not a URL") }
        switch mode {
        case "upload":
            return await measure(mode, Target(baseURL: url, method: .put, requestType: .uploadFile(second)))
        case "multipart":
            var form = MultipartFormData()
            form.append(fileAt: second, name: "file")
            return await measure(
                mode,
                Target(
                    baseURL: url.appending(queryItems: [URLQueryItem(name: "multipart", value: "1")]), method: .post,
                    requestType: .uploadMultipart(form)))
        case "download":
            return await measure(mode, Target(baseURL: url, method: .get, requestType: .download(.file(second))))
        case "stub-download":
            let server = StubServer()
            server.stub(.path("/big"), response: .file(URL(fileURLWithPath: first)))
            guard let stubURL = URL(string: "https://stub.example.com/big") else { return 1 }
            return await measure(
                mode, Target(baseURL: stubURL, method: .get, requestType: .download(.file(second))),
                transport: URLSessionTransport(configuration: server.sessionConfiguration))
        case "throughput", "curl-download", "curl-upload":
            guard arguments.count == 4, let rounds = Int(arguments[3]), rounds > 0 else {
                throw BenchOptions.UsageError(message: usage)
            }
            #if os(Linux)
                if mode == "curl-download" { return await CurlReferenceProbe.download(url, to: second, rounds: rounds) }
                if mode == "curl-upload" { return await CurlReferenceProbe.upload(second, to: url, rounds: rounds) }
            #endif
            guard mode == "throughput" else { throw BenchOptions.UsageError(message: "\(mode) needs Linux") }
            return await throughput(url, destination: second, rounds: rounds)
        default:
            throw BenchOptions.UsageError(message: usage)
        }
    }

    private static func measure(_ mode: String, _ target: Target, transport: (any Transport)? = nil) async -> Int32 {
        guard let transport = transport ?? selectedTransport() else { return 1 }
        let client = Client<Target>(transport: transport)
        let before = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        var bytes: Int64 = 0
        let outcome: String
        do {
            var last = TransferProgress()
            var response: Response?
            for try await event in client.transfer(target) {
                switch event {
                case .progress(let progress): last = progress
                case .completed(let completed): response = completed
                }
            }
            bytes = max(last.bytesSent, last.bytesReceived)
            outcome = "status \(response?.statusCode ?? 0)"
        } catch {
            outcome = "\(error)"
        }
        let seconds = Double((clock.now - start).nanoseconds) / 1e9
        return print(
            Report(
                mode: mode, bytes: bytes, seconds: seconds, megabytesPerSecond: Double(bytes) / seconds / 1e6,
                peakGrowthBytes: ProcessMemory.peakBytes() - before, outcome: outcome))
    }

    /// URLSessionTransport, or CurlTransport with `NAL_BENCH_TRANSPORT=curl`; `nil` when that cannot be made.
    private static func selectedTransport() -> (any Transport)? {
        #if os(Linux)
            if ProcessInfo.processInfo.environment["NAL_BENCH_TRANSPORT"] == "curl" {
                do {
                    return try CurlTransport()
                } catch {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                    return nil
                }
            }
        #endif
        return URLSessionTransport()
    }

    private static func bare(_ url: URL) async -> Int32 {
        let counter = ByteCounter()
        let session = URLSession(configuration: .ephemeral, delegate: counter, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let before = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        let bytes = await counter.run(session.dataTask(with: url))
        let seconds = Double((clock.now - start).nanoseconds) / 1e9
        return print(
            Report(
                mode: "bare", bytes: bytes, seconds: seconds, megabytesPerSecond: Double(bytes) / seconds / 1e6,
                peakGrowthBytes: ProcessMemory.peakBytes() - before, outcome: "counted"))
    }

    private static func throughput(_ url: URL, destination: URL, rounds: Int) async -> Int32 {
        let client = Client<Target>()
        return await interleavedThroughput(url, rounds: rounds) {
            _ = try await client.request(
                Target(baseURL: url, method: .get, requestType: .download(.file(destination))))
            defer { try? FileManager.default.removeItem(at: destination) }
            return (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)??
                .int64Value ?? 0
        }
    }

    /// Rounds of `nal` (which moves the body of `url` and returns its size), each followed by a bare URLSession data
    /// task of `url` whose delegate only counts bytes; reports both MB/s and NAL's median ratio.
    static func interleavedThroughput(
        _ url: URL, rounds: Int, nal round: () async throws -> Int64
    ) async -> Int32 {
        let counter = ByteCounter()
        let bare = URLSession(configuration: .ephemeral, delegate: counter, delegateQueue: nil)
        defer { bare.finishTasksAndInvalidate() }
        var nal: [Double] = []
        var plain: [Double] = []
        var size: Int64 = 0
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let start = clock.now
            do {
                size = try await round()
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                return 1
            }
            nal.append(Double(size) / (Double((clock.now - start).nanoseconds) / 1e9) / 1e6)

            let bareStart = clock.now
            let counted = await counter.run(bare.dataTask(with: url))
            plain.append(Double(counted) / (Double((clock.now - bareStart).nanoseconds) / 1e9) / 1e6)
        }
        return print(
            ThroughputReport(
                bytes: size, nalMegabytesPerSecond: nal, bareMegabytesPerSecond: plain,
                ratio: median(nal) / median(plain)))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func print(_ value: some Encodable) -> Int32 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(value) else { return 1 }
        Swift.print(String(decoding: data, as: UTF8.self))
        return 0
    }
}

/// The floor for a download: a data task whose delegate counts the bytes and keeps none.
final class ByteCounter: NSObject, URLSessionDataDelegate, Sendable {
    private struct State: Sendable {
        var count: Int64 = 0
        var done: CheckedContinuation<Int64, Never>?
    }

    private let state = Locked(State())

    func run(_ task: URLSessionDataTask) async -> Int64 {
        await withCheckedContinuation { continuation in
            state.withLock { $0 = State(count: 0, done: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.count += Int64(data.count) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (count, done) = state.withLock { state in
            defer { state.done = nil }
            return (state.count, state.done)
        }
        done?.resume(returning: count)
    }
}
