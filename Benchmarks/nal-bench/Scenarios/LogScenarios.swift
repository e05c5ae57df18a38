import NALLogging

enum BenchLogging {
    static let sink = InMemorySink()
    static let disabled = Logger(subsystem: "bench", category: "disabled")
    static let enabled = Logger(subsystem: "bench", category: "enabled")

    /// Called once before the scenarios run: `bench:enabled` at debug, everything else at notice.
    static func setUp() {
        let configuration = (try? LogConfiguration.parse("bench:enabled=debug,*=notice")) ?? LogConfiguration()
        LoggingSystem.bootstrap(sinks: [sink], configuration: configuration)
    }
}

extension Benchmark {
    static let logScenarios: [Benchmark] = [
        Benchmark(
            "log.disabled",
            measures: "A debug line with three interpolations in a category that is off: it must allocate nothing."
        ) { n in
            let user = "ada", id = 42
            for _ in 0..<n { BenchLogging.disabled.debug("user \(user) id \(id) fetched \(3) items") }
        },
        Benchmark("log.enabled", measures: "The same line logged to an in-memory sink.") { n in
            let user = "ada", id = 42
            for _ in 0..<n {
                BenchLogging.enabled.debug("user \(user, privacy: .public) id \(id) fetched \(3) items")
            }
            BenchLogging.sink.removeAll()
        },
        Benchmark("log.privacy", measures: "A line with private, hashed and public values: what redaction costs.") {
            n in
            let token = "s3cr3t-token", host = "api.example.com"
            for _ in 0..<n {
                BenchLogging.enabled.info(
                    "token \(token, privacy: .private(mask: .hash)) host \(host, privacy: .public) user \(token)")
            }
            BenchLogging.sink.removeAll()
        },
    ]
}
