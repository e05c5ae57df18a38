import CMallocCounter
import Foundation
import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What heap blocks a call leaves behind, measured the same way for a bare `URLSession.data(for:)` and for NAL's
/// client, so that a soak can tell NAL's leaks from FoundationNetworking's: on Linux, FoundationNetworking keeps about
/// four blocks per request that nothing frees, whoever makes the request.
struct SoakReference: Sendable {
    /// Blocks still allocated after a call, per call, and resident bytes gained per call.
    struct Rate: Sendable {
        var blocksPerCall: Double
        var residentBytesPerCall: Double
    }

    let url: URL
    let calls: Int
    let concurrency: Int

    /// The rate of `call`, after a tenth as many calls to warm up caches and pools.
    func rate(_ call: @escaping @Sendable () async -> Void) async -> Rate {
        await run(max(1, calls / 10), call)
        let blocks = nal_live_allocations()
        let resident = ProcessMemory.residentBytes()
        await run(calls, call)
        // Let callbacks still queued for finished calls run and free what they hold.
        try? await Task.sleep(for: .milliseconds(200))
        return Rate(
            blocksPerCall: Double(nal_live_allocations() - blocks) / Double(calls),
            residentBytesPerCall: Double(ProcessMemory.residentBytes() - resident) / Double(calls))
    }

    private func run(_ count: Int, _ call: @escaping @Sendable () async -> Void) async {
        let next = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while next.withLock({ counter -> Bool in
                        defer { counter += 1 }
                        return counter < count
                    }) {
                        await call()
                    }
                }
            }
        }
    }
}
