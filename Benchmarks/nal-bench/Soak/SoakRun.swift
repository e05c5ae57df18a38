import CMallocCounter
import Foundation
import NALCore
import NALLogging
import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench soak <fault-server-url> [--seconds N] [--concurrency N]`: mixed traffic through one `Client` with
/// token refresh, retry and logging middleware, against scripts/fault_server.py, for `scripts/soak.sh`.
///
/// First it measures what a data call leaves on the heap (blocks allocated and never freed), for a bare
/// `URLSession.data(for:)` and for the soak's client: FoundationNetworking keeps about four blocks per request
/// whoever makes it, so NAL is judged by what it adds to that. Then each worker loops over random calls (data,
/// delays, 503s that retry, 401s that refresh, file uploads, multipart forms, downloads to disk, progress streams,
/// broken bodies) and cancels about one call in six at a random moment. Every second it samples RSS, open file
/// descriptors and threads. At the end it waits for every call to end and checks: no lost call (every call ended
/// with a response or a typed error within `SoakTraffic.callDeadline`), NAL's own leak under half a block per call,
/// descriptors and threads back to what they were before the traffic, when nothing was in flight (within a small
/// pool's slack), and, over CurlTransport or with `NAL_SOAK_GATE_RSS` (a transport without FoundationNetworking's
/// leak), RSS flat (the last fifth's peak under 110 % of the first fifth's). Over CurlTransport NAL's leak counts
/// whole: nothing of URLSession is underneath to subtract. A bound that cannot be measured (no `/proc`, no heap
/// counting) fails the run. Prints a report; exits 1 when a bound is broken.
enum SoakRun {
    struct Options {
        var url: URL
        var seconds = 60
        var concurrency = 8
    }

    static func parse(_ arguments: [String]) throws(BenchOptions.UsageError) -> Options {
        let parsed = try SubcommandArguments(
            arguments, subcommand: "soak", flags: ["--seconds", "--concurrency"],
            missingURL: "soak needs the fault server's URL")
        var options = Options(url: parsed.url)
        if let seconds = parsed.numbers["--seconds"] { options.seconds = seconds }
        if let concurrency = parsed.numbers["--concurrency"] { options.concurrency = concurrency }
        return options
    }

    /// URLSessionTransport, or CurlTransport with `NAL_SOAK_TRANSPORT=curl`; `nil`, said on standard error, when
    /// libcurl cannot be loaded.
    static func transport() -> (any Transport)? {
        guard ProcessInfo.processInfo.environment["NAL_SOAK_TRANSPORT"] == "curl" else { return URLSessionTransport() }
        #if os(Linux)
            do {
                return try CurlTransport()
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                return nil
            }
        #else
            FileHandle.standardError.write(Data("Error: CurlTransport is Linux only\n".utf8))
            return nil
        #endif
    }

    static func run(_ options: Options) async -> Int32 {
        let log = SoakLogCounter()
        LoggingSystem.bootstrap(
            sinks: [log], configuration: (try? LogConfiguration.parse("*=debug")) ?? LogConfiguration())
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nal-soak-\(getpid())")
        try? FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let upload = workspace.appendingPathComponent("upload.bin")
        _ = FileManager.default.createFile(
            atPath: upload.path, contents: Data((0..<1_000_000).map { UInt8($0 % 251) }))
        guard let transport = transport() else { return 1 }
        let traffic = SoakTraffic(base: options.url, workspace: workspace, upload: upload, transport: transport)
        // First, what a data call leaves behind: bare URLSession, then NAL's client with the soak's middleware.
        let reference = SoakReference(url: options.url, calls: 20_000, concurrency: options.concurrency)
        let fast = options.url.appendingPathComponent("fast")
        let bare = URLSession(configuration: .ephemeral)
        // Over CurlTransport nothing of URLSession's is subtracted, and its calls would only raise the heap's
        // high-water mark that the RSS bound starts from.
        let overCurl = ProcessInfo.processInfo.environment["NAL_SOAK_TRANSPORT"] == "curl"
        let bareRate =
            overCurl
            ? SoakReference.Rate(blocksPerCall: 0, residentBytesPerCall: 0)
            : await reference.rate { _ = try? await bare.data(for: URLRequest(url: fast)) }
        let nalRate = await reference.rate { await traffic.fastCall() }
        let tally = SoakTally()
        // Descriptors and threads when nothing is in flight, before the traffic: what the end must come back to.
        // Dispatch lets the reference phase's extra threads go after a few seconds: wait until their number stops
        // falling for 7 s (up to 20 s), so that the baseline is the idle process, not the reference phase's tail.
        var idle = SoakSample.now()
        let settled = ContinuousClock.now + .seconds(20)
        var steady = 0
        while steady < 14, ContinuousClock.now < settled {
            try? await Task.sleep(for: .milliseconds(500))
            let next = SoakSample.now()
            steady = next.threads < idle.threads || next.descriptors < idle.descriptors ? 0 : steady + 1
            if next.threads <= idle.threads && next.descriptors <= idle.descriptors { idle = next }
        }
        let samples = Locked<[SoakSample]>([])
        let clock = ContinuousClock()
        let end = clock.now + .seconds(options.seconds)

        let sampler = Task {
            var second = 0
            while !Task.isCancelled {
                let sample = SoakSample.now()
                samples.withLock { $0.append(sample) }
                if second % 10 == 0 {
                    let now = tally.snapshot()
                    print(
                        "\(second) s: \(now.started) calls, \(now.started - now.ended) in flight, RSS "
                            + String(format: "%.1f MiB", Double(sample.residentBytes) / 1_048_576)
                            + ", \(nal_live_allocations()) blocks live")
                }
                second += 1
                try? await Task.sleep(for: .seconds(1))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<options.concurrency {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var call = 0
                    while clock.now < end {
                        call += 1
                        await traffic.oneCall(named: "w\(worker)-\(call)", tally: tally, using: &generator)
                        if call % 200 == 0 { await traffic.forgetJournal() }
                    }
                }
            }
        }
        // The fifths the RSS bound compares are of the traffic alone, not of the quiet end.
        sampler.cancel()
        // Calls cancelled at a random moment may still be cleaning up: give them a moment, then count.
        let settleUntil = clock.now + .seconds(30)
        while tally.inFlight > 0, clock.now < settleUntil { try? await Task.sleep(for: .milliseconds(50)) }
        // Dispatch lets its idle worker threads go after a few seconds, and connections close: wait up to 20 s for
        // both to come back within bounds. A leak stays.
        var final = SoakSample.now()
        let quietUntil = clock.now + .seconds(20)
        while !SoakReport.isBack(final, to: idle), clock.now < quietUntil {
            try? await Task.sleep(for: .milliseconds(500))
            final = SoakSample.now()
        }
        let report = SoakReport(
            tally: tally.snapshot(), samples: samples.withLock { $0 }, idle: idle, final: final, bare: bareRate,
            nal: nalRate, sharesFoundationNetworking: !overCurl,
            gatesResidentMemory: overCurl || ProcessInfo.processInfo.environment["NAL_SOAK_GATE_RSS"] != nil,
            countsAllocations: nal_malloc_counting_available() != 0)
        print("log entries written (every level, counted, not kept): \(log.count)")
        print(report.text)
        return report.passed ? 0 : 1
    }
}
