import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench memory URL [--limit BYTES] [--calls N]`: makes `calls` requests for `URL` through `Client` and
/// `URLSessionTransport`, one after another, and prints as JSON how far peak RSS grew above the RSS before the
/// first call, how long each call took and how it ended. `scripts/memory-bounds.sh` checks the figures.
enum MemoryProbe {
    struct Options {
        var url: URL
        var limit: Int?
        var calls = 1
    }

    struct Call: Encodable {
        var milliseconds: Double
        var outcome: String
    }

    struct Report: Encodable {
        var url: String
        var limit: Int
        var rssBeforeBytes: Int
        var peakGrowthBytes: Int
        var calls: [Call]
    }

    struct Target: RemoteService {
        var baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .get }
        var requestType: RequestType { .plain }
    }

    static func parse(_ arguments: [String]) throws(BenchOptions.UsageError) -> Options {
        let parsed = try SubcommandArguments(
            arguments, subcommand: "memory", flags: ["--limit", "--calls"], missingURL: "memory needs a URL")
        var options = Options(url: parsed.url)
        if let limit = parsed.numbers["--limit"] { options.limit = limit }
        if let calls = parsed.numbers["--calls"] { options.calls = calls }
        return options
    }

    static func run(_ options: Options) async -> Int32 {
        let limit = options.limit ?? URLSessionTransport.defaultMaximumResponseSize
        let client = Client<Target>(transport: URLSessionTransport(maximumResponseSize: limit))
        let before = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        var calls: [Call] = []
        let clock = ContinuousClock()
        for _ in 0..<options.calls {
            let start = clock.now
            let outcome: String
            do {
                let response = try await client.request(Target(baseURL: options.url))
                outcome = "status \(response.statusCode), \(response.data.count) bytes"
            } catch {
                outcome = "\(error)"
            }
            let elapsed = clock.now - start
            calls.append(Call(milliseconds: Double(elapsed.nanoseconds) / 1e6, outcome: outcome))
        }
        let report = Report(
            url: options.url.absoluteString, limit: limit, rssBeforeBytes: before,
            peakGrowthBytes: ProcessMemory.peakBytes() - before, calls: calls)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(report) else { return 1 }
        print(String(decoding: data, as: UTF8.self))
        return 0
    }
}

/// Resident-set figures from `/proc/self/status`.
enum ProcessMemory {
    /// `VmRSS`: resident now.
    static func residentBytes() -> Int { field("VmRSS:") }
    /// `VmHWM`: the peak resident set since start, or since `resetPeak()`.
    static func peakBytes() -> Int { field("VmHWM:") }

    /// Resets `VmHWM` to the current RSS (Linux 4.0 and later).
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter(\.isNumber)
            return (Int(String(digits)) ?? 0) * 1024
        }
        return 0
    }
}
