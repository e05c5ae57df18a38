import Foundation
import NALLogging

/// Calls started and ended, and how they ended, for a soak.
final class SoakTally: Sendable {
    struct Snapshot {
        var started: Int
        var ended: Int
        var outcomes: [String: Int]
    }

    private let state = Locked((started: 0, ended: 0, outcomes: [String: Int]()))

    func started() {
        state.withLock { $0.started += 1 }
    }

    func ended(_ outcome: String) {
        state.withLock {
            $0.ended += 1
            $0.outcomes[outcome, default: 0] += 1
        }
    }

    var inFlight: Int { state.withLock { $0.started - $0.ended } }

    func snapshot() -> Snapshot {
        state.withLock { Snapshot(started: $0.started, ended: $0.ended, outcomes: $0.outcomes) }
    }
}

/// The process's resident memory, open file descriptors and threads at one moment (Linux `/proc`).
struct SoakSample: Sendable {
    var residentBytes: Int
    var descriptors: Int
    var threads: Int

    static func now() -> SoakSample {
        SoakSample(
            residentBytes: ProcessMemory.residentBytes(),
            descriptors: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1,
            threads: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1)
    }
}

/// What a soak measured, against its bounds.
struct SoakReport {
    /// Descriptors and threads a connection pool and dispatch may keep beyond what the idle process had before the
    /// traffic.
    static let descriptorSlack = 8
    static let threadSlack = 8
    /// How much the last fifth's peak RSS may exceed the first fifth's.
    static let growthBound = 0.10
    /// Heap blocks per call that NAL may leave beyond what a bare URLSession leaves.
    static let leakBound = 0.5
    /// The outcome of a call that reached its total timeout (a minute, against a server that answers in
    /// milliseconds): it hung, and only the timeout ended it.
    static let hung = "hung (total timeout)"

    let tally: SoakTally.Snapshot
    let samples: [SoakSample]
    /// Before the traffic, nothing in flight.
    let idle: SoakSample
    /// After the traffic, every call ended.
    let final: SoakSample
    let bare: SoakReference.Rate
    let nal: SoakReference.Rate
    /// Whether NAL's leak is judged against the bare URLSession's (whose FoundationNetworking the client shares) or
    /// against none (a transport without FoundationNetworking underneath must leave nothing).
    let sharesFoundationNetworking: Bool
    let gatesResidentMemory: Bool
    /// Whether this process can count heap blocks (glibc, no sanitizer); without it the leak is not measured.
    let countsAllocations: Bool

    /// Whether descriptors and threads in `sample` are back to what `idle` had, within the slack.
    static func isBack(_ sample: SoakSample, to idle: SoakSample) -> Bool {
        sample.descriptors <= idle.descriptors + descriptorSlack && sample.threads <= idle.threads + threadSlack
    }

    /// Blocks per call that NAL leaves beyond what the bare URLSession leaves (or at all, over CurlTransport).
    var nalLeak: Double { nal.blocksPerCall - (sharesFoundationNetworking ? bare.blocksPerCall : 0) }

    /// The samples of one fifth of the run; the last fifth runs to the last sample.
    private func fifth(_ index: Int) -> ArraySlice<SoakSample> {
        let size = max(1, samples.count / 5)
        let start = min(samples.count - 1, index * size)
        let end = index == 4 ? samples.count : min(samples.count, max(start + 1, (index + 1) * size))
        return samples[max(0, start)..<end]
    }

    private var warmed: (rss: Int, descriptors: Int, threads: Int) {
        let first = fifth(0)
        return (
            first.map(\.residentBytes).max() ?? 0, first.map(\.descriptors).max() ?? 0,
            first.map(\.threads).max() ?? 0
        )
    }

    private var lastPeak: Int { fifth(4).map(\.residentBytes).max() ?? 0 }

    var growth: Double {
        let warm = warmed.rss
        return warm > 0 ? Double(lastPeak - warm) / Double(warm) : 0
    }

    /// Calls that never ended, and calls that only their total timeout ended.
    var lost: Int { tally.started - tally.ended + (tally.outcomes[Self.hung] ?? 0) }

    /// Calls that ended with an error that is not a `NALError`.
    var untyped: Int { tally.outcomes.filter { $0.key.hasPrefix("untyped") }.values.reduce(0, +) }

    /// Whether every bound could be measured here: without `/proc` or heap counting a bound would pass unseen.
    var measured: Bool {
        countsAllocations && idle.descriptors >= 0 && idle.threads >= 0 && final.descriptors >= 0
            && final.threads >= 0 && samples.allSatisfy { $0.residentBytes > 0 }
    }

    var passed: Bool {
        measured && samples.count >= 5 && lost == 0 && untyped == 0 && nalLeak < Self.leakBound
            && (!gatesResidentMemory || growth < Self.growthBound)
            && Self.isBack(final, to: idle)
    }

    var text: String {
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        var lines = [
            "calls: \(tally.started) started, \(tally.ended) ended, \(lost) lost or hung (bound 0)",
            "outcomes: "
                + tally.outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + " (\(untyped) not a NALError, bound 0)",
            "peak RSS by fifth: "
                + (0..<5).map { mib(fifth($0).map(\.residentBytes).max() ?? 0) }.joined(separator: ", "),
            sharesFoundationNetworking
                ? String(
                    format: "heap blocks left per data call: bare URLSession %.2f (%.0f B of RSS), NAL's client %.2f "
                        + "(%.0f B): NAL adds %.2f (bound %.1f)", bare.blocksPerCall, bare.residentBytesPerCall,
                    nal.blocksPerCall, nal.residentBytesPerCall, nalLeak, Self.leakBound)
                : String(
                    format: "heap blocks left per data call by NAL's client over CurlTransport: %.2f (%.0f B of RSS; "
                        + "bound %.1f, nothing of URLSession's underneath to subtract)", nal.blocksPerCall,
                    nal.residentBytesPerCall, Self.leakBound),
            String(
                format: "RSS growth from the first fifth to the last (peaks): %.1f %% (%@)", growth * 100,
                gatesResidentMemory
                    ? String(format: "bound %.0f %%", Self.growthBound * 100)
                    : "not gated: FoundationNetworking's own leak, above, grows it; NAL_SOAK_GATE_RSS=1 gates it"),
            "descriptors: \(idle.descriptors) idle before the traffic, \(warmed.descriptors) at most under load "
                + "after warm-up, \(final.descriptors) idle at the end (bound idle + \(Self.descriptorSlack))",
            "threads: \(idle.threads) idle before the traffic, \(warmed.threads) at most under load after warm-up, "
                + "\(final.threads) idle at the end (bound idle + \(Self.threadSlack))",
        ]
        if !measured {
            lines.append("not measured here (no /proc, or heap blocks cannot be counted): the bounds cannot be checked")
        }
        lines.append(passed ? "soak: ok" : "soak: FAIL")
        return lines.joined(separator: "\n")
    }
}
