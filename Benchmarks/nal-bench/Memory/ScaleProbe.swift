import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-bench scale urlsession|curl URL [--calls N]`: makes `calls` GETs for `URL` all at once, through
/// `URLSession.data(for:)` or through `Client` over `CurlTransport`, and prints as JSON how far peak RSS grew above
/// the RSS before the calls, how many failed and how long they took. One contender per process, so that neither
/// inherits the other's heap: `scripts/scale-bench.sh` runs both in interleaved rounds and compares them.
enum ScaleProbe {
    enum Contender: String {
        case urlSession = "urlsession"
        case curl
    }

    struct Options {
        var contender: Contender
        var url: URL
        var calls = 10_000
    }

    struct Report: Encodable {
        var contender: String
        var calls: Int
        var failures: Int
        /// The first failure, to say why.
        var firstFailure: String?
        var rssBeforeBytes: Int
        var peakGrowthBytes: Int
        var seconds: Double
        /// For CurlTransport: the most transfers libcurl held at once.
        var peakTransfersInLibcurl: Int?
    }

    /// A GET of the URL as given, as `MemoryProbe` makes.
    typealias Target = MemoryProbe.Target

    static func parse(_ arguments: [String]) throws(BenchOptions.UsageError) -> Options {
        guard let name = arguments.first, let contender = Contender(rawValue: name) else {
            throw BenchOptions.UsageError(message: "scale needs 'urlsession' or 'curl', then a URL")
        }
        let parsed = try SubcommandArguments(
            Array(arguments.dropFirst()), subcommand: "scale", flags: ["--calls"], missingURL: "scale needs a URL")
        var options = Options(contender: contender, url: parsed.url)
        if let calls = parsed.numbers["--calls"] { options.calls = calls }
        return options
    }

    static func run(_ options: Options) async -> Int32 {
        let call: @Sendable () async -> String?
        var peakInLibcurl: @Sendable () -> Int? = { nil }
        switch options.contender {
        case .urlSession:
            let session = URLSession(configuration: .default)
            let request = URLRequest(url: options.url)
            call = {
                do {
                    let (_, response) = try await session.data(for: request)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    return status == 200 ? nil : "status \(status)"
                } catch {
                    return "\(error)"
                }
            }
        case .curl:
            #if os(Linux)
                let client: Client<Target>
                do {
                    let transport = try CurlTransport()
                    peakInLibcurl = { transport.peakTransfersInLibcurl }
                    client = Client<Target>(transport: transport)
                } catch {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                    return 1
                }
                let target = Target(baseURL: options.url)
                call = {
                    do {
                        let response = try await client.request(target)
                        return response.statusCode == 200 ? nil : "status \(response.statusCode)"
                    } catch {
                        return "\(error)"
                    }
                }
            #else
                FileHandle.standardError.write(Data("Error: CurlTransport is Linux only\n".utf8))
                return 1
            #endif
        }
        // One call first, outside the measurement: libraries, the connection pool and the first allocations are
        // there for both contenders before the figure starts.
        if let failure = await call() {
            FileHandle.standardError.write(Data("Error: the first call failed: \(failure)\n".utf8))
            return 1
        }
        let before = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        let start = ContinuousClock.now
        let failures = await withTaskGroup(of: String?.self, returning: [String].self) { group in
            for _ in 0..<options.calls { group.addTask { await call() } }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        let elapsed = ContinuousClock.now - start
        let report = Report(
            contender: options.contender.rawValue, calls: options.calls, failures: failures.count,
            firstFailure: failures.first, rssBeforeBytes: before, peakGrowthBytes: ProcessMemory.peakBytes() - before,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            peakTransfersInLibcurl: peakInLibcurl())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(report) else { return 1 }
        print(String(decoding: data, as: UTF8.self))
        return 0
    }
}
