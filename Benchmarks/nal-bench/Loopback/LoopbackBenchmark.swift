import CMallocCounter
import Foundation
import NALCore
import NALLogging

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench loopback URL`: round trips to a fast local server (`scripts/loopback_server.py`), three ways in
/// interleaved rounds: NAL's Client over URLSessionTransport, plain `URLSession.data(for:)`, and a bare
/// delegate-based data task (what URLSessionTransport must do at least). Each round measures sequential calls (time,
/// and the process's CPU per call), then throughput and CPU with 100 in flight; ratios are medians of per-round
/// ratios against `data(for:)`. The timed passes run with the allocation counter paused; allocations per call come
/// from an untimed counted pass.
/// `scripts/loopback-bench.sh` starts the server and runs it.
enum LoopbackBenchmark {
    struct Options {
        var url: URL
        var rounds = 9
        var sequential = 300
        var concurrent = 2000
        var inFlight = 100
        var connectionsPerHost: Int?
        /// `--only NAME,NAME`: these contenders alone (for a profiler); `data(for:)` always runs, as the reference.
        var only: Set<String>?
        /// `--profile NAME`: that contender's batches with `inFlight` at once, and nothing else (no reference, no
        /// sequential calls), for `perf stat` and `perf record`; prints its CPU per call each round.
        var profile: String?
    }

    struct Contender: Sendable {
        let name: String
        let fetch: @Sendable () async throws -> Void
        /// Where the calls of a batch run: the executor the whole batch prefers, or `nil` for the global one.
        var executor: (any TaskExecutor)?
        /// For a contender outside this process (the curl CLI): makes N calls, so many at once (one after the other
        /// when `nil`), and returns the CPU seconds they cost and the time that went to anything but the calls
        /// (starting the process), which the measurement leaves out.
        var batch:
            (@Sendable (_ count: Int, _ inFlight: Int?) async throws -> (cpuSeconds: Double, overhead: Duration))?

        init(
            name: String, executor: (any TaskExecutor)? = nil, fetch: @escaping @Sendable () async throws -> Void
        ) {
            self.name = name
            self.executor = executor
            self.fetch = fetch
        }

        init(
            name: String,
            batch:
                @escaping @Sendable (_ count: Int, _ inFlight: Int?) async throws -> (
                    cpuSeconds: Double, overhead: Duration
                )
        ) {
            self.name = name
            self.fetch = { _ = try await batch(1, nil) }
            self.batch = batch
        }
    }

    struct Target: RemoteService {
        let baseURL: URL
        var path: String { "user" }
        var method: HTTPMethod { .get }
        var requestType: RequestType { .plain }
    }

    static func parse(_ arguments: [String]) throws(BenchOptions.UsageError) -> Options {
        var remaining = arguments[...]
        guard let text = remaining.popFirst(), let url = URL(string: text) else {
            throw BenchOptions.UsageError(message: "loopback needs a URL")
        }
        var options = Options(url: url)
        while let flag = remaining.popFirst() {
            if flag == "--only", let names = remaining.popFirst() {
                options.only = Set(names.split(separator: ",").map(String.init))
                continue
            }
            if flag == "--profile" {
                guard let name = remaining.popFirst() else {
                    throw BenchOptions.UsageError(message: "'--profile' needs a contender's name")
                }
                options.profile = name
                continue
            }
            guard let value = remaining.popFirst(), let number = Int(value), number > 0 else {
                throw BenchOptions.UsageError(message: "'\(flag)' needs a positive whole number")
            }
            switch flag {
            case "--rounds": options.rounds = number
            case "--sequential": options.sequential = number
            case "--concurrent": options.concurrent = number
            case "--in-flight": options.inFlight = number
            case "--connections": options.connectionsPerHost = number
            default: throw BenchOptions.UsageError(message: "unknown option '\(flag)' for loopback")
            }
        }
        return options
    }

    static func configuration(_ options: Options) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        if let connections = options.connectionsPerHost { configuration.httpMaximumConnectionsPerHost = connections }
        return configuration
    }

    static func contenders(_ options: Options) -> [Contender] {
        let client = Client<Target>(transport: URLSessionTransport(configuration: configuration(options)))
        let target = Target(baseURL: options.url)
        let session = URLSession(configuration: configuration(options))
        let request = URLRequest(url: options.url.appendingPathComponent("user"))
        let bare = BareDelegate(configuration: configuration(options))
        return [
            Contender(name: "data(for:)") {
                let (data, response) = try await session.data(for: request)
                guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else {
                    throw URLError(.badServerResponse)
                }
            },
            Contender(name: "bare delegate task") {
                let data = try await bare.fetch(request)
                guard !data.isEmpty else { throw URLError(.badServerResponse) }
            },
            Contender(name: "NAL Client") {
                let response = try await client.request(target)
                guard !response.data.isEmpty else { throw URLError(.badServerResponse) }
            },
        ] + curlContenders(options, target: target, request: request) + commandLineContenders(options)
    }

    /// The curl CLI, the reference for what libcurl can do here, when it is on the PATH. Starting the process is
    /// left out of its time and CPU: measured as a one-call batch, median of five, right before each batch, so that a
    /// moment of a noisy machine does not move every round's figure the same way.
    static func commandLineContenders(_ options: Options) -> [Contender] {
        guard let curl = CurlCommandLine.executable else { return [] }
        return [
            Contender(name: "curl CLI") { count, inFlight in
                var walls: [Duration] = []
                var cpus: [Double] = []
                for _ in 0..<5 {
                    let start = ContinuousClock.now
                    cpus.append(try await CurlCommandLine.batch(curl, base: options.url, count: 1, inFlight: nil))
                    walls.append(ContinuousClock.now - start)
                }
                let startup = (wall: walls.sorted()[2], cpuSeconds: cpus.sorted()[2])
                let batchStart = ContinuousClock.now
                let cpu = try await CurlCommandLine.batch(curl, base: options.url, count: count, inFlight: inFlight)
                let batchWall = ContinuousClock.now - batchStart
                // The one-call run made a call too: the batch less it is `count - 1` calls, scaled to `count`.
                let scale = Double(count) / Double(max(1, count - 1))
                let callsWall = max(.zero, (batchWall - startup.wall) * scale)
                // Left out of the batch's time: the five measuring runs, and the batch's own start.
                let measuring = walls.reduce(Duration.zero, +)
                return (
                    cpuSeconds: max(0, cpu - startup.cpuSeconds) * scale,
                    overhead: measuring + batchWall - callsWall
                )
            }
        ]
    }

    /// CurlTransport alone, and NAL's Client over it (Linux, where libcurl loads).
    static func curlContenders(_ options: Options, target: Target, request: URLRequest) -> [Contender] {
        #if os(Linux)
            guard let curl = try? CurlTransport(maximumConnectionsPerHost: options.connectionsPerHost ?? 6) else {
                return []
            }
            let client = Client<Target>(transport: curl)
            let context = TransportContext(endpoint: target)
            return [
                Contender(name: "CurlTransport") {
                    let response = try await curl.send(request, context: context)
                    guard response.statusCode == 200, !response.data.isEmpty else {
                        throw URLError(.badServerResponse)
                    }
                },
                Contender(name: "NAL Client + curl") {
                    let response = try await client.request(target)
                    guard !response.data.isEmpty else { throw URLError(.badServerResponse) }
                },
                Contender(name: "CurlTransport on its loop", executor: curl.executor) {
                    let response = try await curl.send(request, context: context)
                    guard response.statusCode == 200, !response.data.isEmpty else {
                        throw URLError(.badServerResponse)
                    }
                },
                Contender(name: "NAL Client + curl on its loop", executor: curl.executor) {
                    let response = try await client.request(target)
                    guard !response.data.isEmpty else { throw URLError(.badServerResponse) }
                },
            ] + (HandOffFloor().map { floor in [Contender(name: "hand-off floor") { await floor.call() }] } ?? [])
        #else
            return []
        #endif
    }

    static func run(_ options: Options) async -> Int32 {
        if let name = options.profile { return await profile(name, options) }
        let contenders = contenders(options).filter { contender in
            contender.name == "data(for:)" || options.only.map { $0.contains(contender.name) } ?? true
        }
        let clock = ContinuousClock()
        var sequential = Array(repeating: [Double](), count: contenders.count)
        var throughput = Array(repeating: [Double](), count: contenders.count)
        var cpu = Array(repeating: [Double](), count: contenders.count)
        // The process's CPU per sequential call: issue 38's CPU target is on this one, `cpu` is at 100 in flight.
        var sequentialCPU = Array(repeating: [Double](), count: contenders.count)
        // Heap allocations per sequential call, the whole process's (the event loop's thread included), from a
        // counted pass of their own: the timed passes pay no counter, which the CLI never pays either.
        var allocations = Array(repeating: [Double](), count: contenders.count)
        // The Client's time over the bare transport's, per round, by the bare contender's name.
        var clientOverBare: [String: [Double]] = [:]
        // The counter counts only in `allocationsMade` (see `allocations`).
        nal_malloc_counting_pause(1)
        defer { nal_malloc_counting_pause(0) }
        let pairs = clientPairs.compactMap { pair -> (bare: Contender, client: Contender)? in
            guard let bare = contenders.first(where: { $0.name == pair.bare }),
                let client = contenders.first(where: { $0.name == pair.client })
            else { return nil }
            return (bare, client)
        }
        do {
            for contender in contenders {
                if let batch = contender.batch {
                    _ = try await batch(50, nil)
                } else {
                    try await withTaskExecutorPreference(contender.executor) {
                        for _ in 0..<50 { try await contender.fetch() }
                    }
                }
            }
            for round in 0..<options.rounds {
                let order = round % 2 == 0 ? Array(contenders.indices) : contenders.indices.reversed()
                for index in order {
                    let start = clock.now
                    var overhead = Duration.zero
                    var seconds: Double
                    if let batch = contenders[index].batch {
                        (seconds, overhead) = try await batch(options.sequential, nil)
                    } else {
                        let cpuStart = processCPUSeconds()
                        try await withTaskExecutorPreference(contenders[index].executor) {
                            for _ in 0..<options.sequential { try await contenders[index].fetch() }
                        }
                        seconds = processCPUSeconds() - cpuStart
                    }
                    sequential[index].append(
                        Double((clock.now - start - overhead).nanoseconds) / Double(options.sequential))
                    sequentialCPU[index].append(seconds / Double(options.sequential) * 1e6)
                    if contenders[index].batch == nil {
                        let made = try await allocationsMade {
                            try await withTaskExecutorPreference(contenders[index].executor) {
                                for _ in 0..<Self.countedCalls { try await contenders[index].fetch() }
                            }
                        }
                        allocations[index].append(Double(made) / Double(Self.countedCalls))
                    }
                }
                for index in order {
                    let start = clock.now
                    let cpuStart = processCPUSeconds()
                    var seconds: Double
                    var overhead = Duration.zero
                    if let batch = contenders[index].batch {
                        (seconds, overhead) = try await batch(options.concurrent, options.inFlight)
                    } else {
                        try await withTaskExecutorPreference(contenders[index].executor) {
                            try await concurrently(
                                options.concurrent, inFlight: options.inFlight, contenders[index].fetch)
                        }
                        seconds = processCPUSeconds() - cpuStart
                    }
                    throughput[index].append(
                        Double(options.concurrent) / (Double((clock.now - start - overhead).nanoseconds) / 1e9))
                    cpu[index].append(seconds / Double(options.concurrent) * 1e6)
                }
                for pair in pairs {
                    clientOverBare[pair.bare.name, default: []].append(
                        try await alternating(pair.bare, pair.client, calls: options.sequential))
                }
            }
        } catch {
            FileHandle.standardError.write(Data("Error: a loopback request failed: \(error)\n".utf8))
            return 1
        }
        print(
            report(
                contenders: contenders.map(\.name), sequential: sequential, sequentialCPU: sequentialCPU,
                throughput: throughput, cpu: cpu, allocations: allocations, clientOverBare: clientOverBare,
                options: options))
        return 0
    }

    /// Runs one contender's concurrent batches alone, for a profiler.
    static func profile(_ name: String, _ options: Options) async -> Int32 {
        guard let contender = contenders(options).first(where: { $0.name == name && $0.batch == nil }) else {
            FileHandle.standardError.write(Data("Error: no in-process contender named '\(name)'\n".utf8))
            return 64
        }
        nal_malloc_counting_pause(1)
        do {
            for round in 1...options.rounds {
                let cpuStart = processCPUSeconds()
                try await withTaskExecutorPreference(contender.executor) {
                    try await concurrently(options.concurrent, inFlight: options.inFlight, contender.fetch)
                }
                let perCall = (processCPUSeconds() - cpuStart) / Double(options.concurrent) * 1e6
                print(String(format: "%@ round %d: %.1f µs CPU per call", name, round, perCall))
            }
        } catch {
            FileHandle.standardError.write(Data("Error: a loopback request failed: \(error)\n".utf8))
            return 1
        }
        return 0
    }

    /// User plus system CPU time of this process so far: a client's cost per call, which the server sharing the
    /// machine does not blur.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func concurrently(
        _ total: Int, inFlight: Int, _ fetch: @escaping @Sendable () async throws -> Void
    )
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            while started < min(inFlight, total) {
                group.addTask { try await fetch() }
                started += 1
            }
            while try await group.next() != nil {
                if started < total {
                    group.addTask { try await fetch() }
                    started += 1
                }
            }
        }
    }

    /// How many calls of each in-process contender a round counts allocations over, untimed.
    static let countedCalls = 50

    /// How many allocations the whole process makes while `body` runs: the one place the counter counts.
    static func allocationsMade(by body: () async throws -> Void) async rethrows -> Int64 {
        nal_malloc_counting_pause(0)
        defer { nal_malloc_counting_pause(1) }
        let before = nal_malloc_count()
        try await body()
        return Int64(nal_malloc_count() - before)
    }

    /// The bare transport and the Client over it, in each of CurlTransport's modes.
    static let clientPairs = [
        (bare: "CurlTransport", client: "NAL Client + curl"),
        (bare: "CurlTransport on its loop", client: "NAL Client + curl on its loop"),
    ]

    /// The Client's sequential time over the bare transport's, from blocks of calls that alternate between the two
    /// (`calls` each in all). Two runs of a few hundred calls one after the other can differ by more than the 5 %
    /// the Client may add; blocks of 20 see the same moments of a noisy machine.
    static func alternating(_ bare: Contender, _ client: Contender, calls: Int) async throws -> Double {
        let clock = ContinuousClock()
        let block = 20
        var time = (bare: Duration.zero, client: Duration.zero)
        // One preference for all the blocks: both contenders of a pair prefer the same executor, and entering it
        // per block would add its hops to both.
        try await withTaskExecutorPreference(bare.executor) {
            for index in 0..<max(1, calls / block) {
                for isClient in index.isMultiple(of: 2) ? [false, true] : [true, false] {
                    let start = clock.now
                    for _ in 0..<block { try await (isClient ? client : bare).fetch() }
                    if isClient { time.client += clock.now - start } else { time.bare += clock.now - start }
                }
            }
        }
        return time.client / time.bare
    }

    static func median(_ values: [Double]) -> Double {
        Runner.percentile(values.sorted(), 0.5)
    }

    static func report(
        contenders: [String], sequential: [[Double]], sequentialCPU: [[Double]], throughput: [[Double]],
        cpu: [[Double]], allocations: [[Double]], clientOverBare: [String: [Double]], options: Options
    ) -> String {
        let connections = options.connectionsPerHost.map(String.init) ?? "default (6)"
        var lines = [
            "loopback: \(options.rounds) interleaved rounds of \(options.sequential) sequential calls and "
                + "\(options.concurrent) calls with \(options.inFlight) in flight; httpMaximumConnectionsPerHost "
                + "\(connections)",
            "contender                        sequential µs/call  vs data(for:)  sequential CPU µs/call  "
                + "concurrent calls/s  vs data(for:)  CPU in flight µs/call  vs data(for:)  mallocs/call",
        ]
        for index in contenders.indices {
            let sequentialRatio = median(zip(sequential[index], sequential[0]).map { $0 / $1 })
            let throughputRatio = median(zip(throughput[index], throughput[0]).map { $0 / $1 })
            let cpuRatio = median(zip(cpu[index], cpu[0]).map { $0 / $1 })
            lines.append(
                contenders[index].padding(toLength: 31, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %18.1f  %+12.1f%%  %22.1f  %18.0f  %+12.1f%%  %21.1f  %+12.1f%%",
                        median(sequential[index]) / 1000, (sequentialRatio - 1) * 100,
                        median(sequentialCPU[index]), median(throughput[index]), (throughputRatio - 1) * 100,
                        median(cpu[index]), (cpuRatio - 1) * 100)
                    + (allocations[index].isEmpty
                        ? "             -" : String(format: "  %12.0f", median(allocations[index]))))
        }
        lines += targets(
            contenders: contenders, sequential: sequential, sequentialCPU: sequentialCPU, throughput: throughput,
            cpu: cpu, clientOverBare: clientOverBare)
        return lines.joined(separator: "\n")
    }

    /// CurlTransport's targets (issues 21 and 38), as medians of per-round ratios: against the curl CLI, against
    /// `data(for:)`, and the Client's cost over the bare transport (from alternating blocks).
    static func targets(
        contenders: [String], sequential: [[Double]], sequentialCPU: [[Double]], throughput: [[Double]],
        cpu: [[Double]], clientOverBare: [String: [Double]]
    ) -> [String] {
        // A round whose reference measured 0 (the CLI's CPU in a short `--quick` run can) has no ratio; with no
        // round left the figure is "n/a" rather than infinite.
        func ratio(_ values: [[Double]], _ index: Int, _ reference: Int) -> Double {
            ratios(zip(values[index], values[reference]).map { ($0, $1) })
        }
        func ratios(_ pairs: [(Double, Double)]) -> Double {
            let measured = pairs.filter { $0.1 > 0 }
            return measured.isEmpty ? .nan : median(measured.map { $0.0 / $0.1 })
        }
        var lines: [String] = []
        // Issue 21's targets are for the transport as most callers use it; the calls made from its loop's thread
        // (`CurlTransport.executor`, opt-in) get the same ratios, without targets and without the floor, since they
        // make none of the hand-offs the floor measures.
        let modes = [
            (label: "", bare: "CurlTransport", isDefault: true),
            (label: " on its loop", bare: "CurlTransport on its loop", isDefault: false),
        ]
        for mode in modes {
            guard let bare = contenders.firstIndex(of: mode.bare) else { continue }
            lines.append(
                mode.isDefault
                    ? "targets (median of per-round ratios):"
                    : "the same ratios on its loop (opt-in; the targets above are for the default):")
            func line(_ what: String, _ value: Double, _ target: String) -> String {
                let name = "CurlTransport\(mode.label) \(what)"
                return "  " + name.padding(toLength: 62, withPad: " ", startingAt: 0)
                    + (value.isFinite ? String(format: "%5.2f", value) : "  n/a")
                    + (mode.isDefault ? "  (target \(target))" : "")
            }
            if let cli = contenders.firstIndex(of: "curl CLI") {
                lines.append(line("sequential time ÷ curl CLI's", ratio(sequential, bare, cli), "≤ 1.25"))
                lines.append(line("sequential CPU ÷ curl CLI's", ratio(sequentialCPU, bare, cli), "≤ 1.50"))
                lines.append(line("CPU at 100 in flight ÷ curl CLI's", ratio(cpu, bare, cli), "≤ 1.50"))
                if mode.isDefault, let floor = contenders.firstIndex(of: "hand-off floor") {
                    // Per round: what the transport costs beyond the two hand-offs any non-blocking design pays.
                    func beyondFloor(_ values: [[Double]]) -> Double {
                        ratios(zip(zip(values[bare], values[floor]), values[cli]).map { ($0.0 - $0.1, $1) })
                    }
                    lines.append(
                        String(
                            format: "    less the hand-off floor: time %5.2f, sequential CPU %5.2f, "
                                + "CPU in flight %5.2f (floor: %.1f µs; CPU %.1f µs sequential, %.1f µs in flight)",
                            beyondFloor(sequential), beyondFloor(sequentialCPU), beyondFloor(cpu),
                            median(sequential[floor]) / 1000, median(sequentialCPU[floor]), median(cpu[floor])))
                }
            }
            lines.append(line("throughput ÷ data(for:)'s", ratio(throughput, bare, 0), "≥ 3.00"))
            if let ratios = clientOverBare[mode.bare], !ratios.isEmpty {
                lines.append(line("under Client, sequential ÷ bare", median(ratios), "≤ 1.05"))
            }
        }
        return lines
    }
}

/// A minimal delegate-based data task runner: collects the body and resumes a continuation, nothing else.
final class BareDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending: Sendable {
        let continuation: UnsafeContinuation<Data, any Error>
        var body = Data()
    }

    private let pending = Locked<[Int: Pending]>([:])
    private let session = Locked<URLSession?>(nil)

    init(configuration: URLSessionConfiguration) {
        super.init()
        session.withLock { $0 = URLSession(configuration: configuration, delegate: self, delegateQueue: nil) }
    }

    func fetch(_ request: URLRequest) async throws -> Data {
        guard let session = session.withLock({ $0 }) else { throw URLError(.unknown) }
        let task = session.dataTask(with: request)
        return try await withUnsafeThrowingContinuation { continuation in
            pending.withLock { $0[task.taskIdentifier] = Pending(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let done = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            done.continuation.resume(throwing: error)
        } else {
            done.continuation.resume(returning: done.body)
        }
    }
}
