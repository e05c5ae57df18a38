import Foundation
import NALCore

/// An LLM chat stream as it arrives: one server-sent event per network chunk, each a JSON delta of one token.
enum BenchStreams {
    static let event = Data(
        #"data: {"id":"chatcmpl-9","choices":[{"index":0,"delta":{"content":" token"}}]}"#.utf8 + [10, 10])
    /// 64 KiB of such events, cut into 1,460-byte pieces (a TCP segment's payload), across event boundaries.
    static let segments: [Data] = {
        var stream = Data()
        while stream.count < 64 << 10 { stream.append(event) }
        return stride(from: 0, to: stream.count, by: 1460).map { stream[$0..<min(stream.count, $0 + 1460)] }
    }()
    static let segmentBytes = segments.reduce(0) { $0 + $1.count }
}

extension Benchmark {
    static let streamScenarios: [Benchmark] = [
        // Allocations per event: each op is one chunk holding one whole event.
        Benchmark("stream.sse-event", measures: "One server-sent event parsed from one chunk: allocations per event.") {
            n in
            var parser = ServerSentEventParser()
            var count = 0
            for _ in 0..<n { count += parser.parse(BenchStreams.event).count }
            blackHole(count)
        },
        // Throughput: each op parses 64 KiB of events arriving in TCP-sized pieces (MB/s = 0.0655 / seconds per op).
        Benchmark(
            "stream.sse-64KiB",
            measures: "64 KiB of events in TCP-sized pieces: parser throughput (MB/s = 0.0655 / seconds per op)."
        ) { n in
            var parser = ServerSentEventParser()
            var count = 0
            for _ in 0..<n {
                for segment in BenchStreams.segments { count += parser.parse(segment).count }
            }
            blackHole(count)
        },
    ]
}
