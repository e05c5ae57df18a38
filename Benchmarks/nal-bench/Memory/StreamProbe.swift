import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench transfer stream` and `stream-throughput`: a big body read through `Client.stream`, for
/// `scripts/transfer-bench.sh`.
enum StreamProbe {
    typealias Target = TransferProbe.Target

    /// Reads the body at no more than `megabytesPerSecond`, pausing between chunks, and reports peak RSS growth.
    static func slowConsumer(_ url: URL, megabytesPerSecond: Int) async -> Int32 {
        let client = Client<Target>()
        let before = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        var bytes: Int64 = 0
        var outcome = "status 0"
        do {
            let stream = try await client.stream(Target(baseURL: url, method: .get, requestType: .plain))
            outcome = "status \(stream.response.statusCode)"
            let bytesPerSecond = Double(megabytesPerSecond) * 1e6
            for try await chunk in stream {
                bytes += Int64(chunk.count)
                // Ahead of the allowed pace: wait until the pace catches up.
                let due = Double(bytes) / bytesPerSecond
                let elapsed = Double((clock.now - start).nanoseconds) / 1e9
                if due - elapsed > 0.001 { try await Task.sleep(for: .seconds(due - elapsed)) }
            }
        } catch {
            outcome = "\(error)"
        }
        let seconds = Double((clock.now - start).nanoseconds) / 1e9
        return TransferProbe.print(
            TransferProbe.Report(
                mode: "stream", bytes: bytes, seconds: seconds, megabytesPerSecond: Double(bytes) / seconds / 1e6,
                peakGrowthBytes: ProcessMemory.peakBytes() - before, outcome: outcome))
    }

    /// `Client.stream` with a consumer that only counts, against a bare data task that only counts, interleaved.
    static func throughput(_ url: URL, rounds: Int) async -> Int32 {
        let client = Client<Target>()
        return await TransferProbe.interleavedThroughput(url, rounds: rounds) {
            var counted: Int64 = 0
            for try await chunk in try await client.stream(Target(baseURL: url, method: .get, requestType: .plain)) {
                counted += Int64(chunk.count)
            }
            return counted
        }
    }
}
