import Foundation

/// Process-wide logging set-up: where entries go and which levels are enabled.
///
/// Without any call, entries at `notice` and above go to standard error, and `NAL_LOG` can change the levels.
/// Call `bootstrap` once at start-up to choose sinks; tests use `bootstrapForTesting`, which may be called again.
public enum LoggingSystem {
    struct State: Sendable {
        var configuration: LogConfiguration
        var sinks: [any LogSink]
        var revealPrivateValues = false
        var bootstrapped = false
        var thresholds: [String: LevelThreshold] = [:]
    }

    private static let state = Locked(initialState())

    private static func initialState() -> State {
        let environment = ProcessInfo.processInfo.environment
        var configuration = LogConfiguration()
        if let spec = environment["NAL_LOG"] {
            do {
                configuration = try LogConfiguration.parse(spec)
            } catch {
                warn("NAL_LOG=\(spec) ignored, \(error); using the default level notice.")
            }
        }
        var state = State(configuration: configuration, sinks: [StandardErrorSink()])
        if environment["NAL_LOG_REVEAL_PRIVATE"] == "1" {
            state.revealPrivateValues = allowReveal()
        }
        return state
    }

    /// Chooses the sinks and, optionally, the configuration (instead of `NAL_LOG`). Only the first call has an
    /// effect; it returns `false` for later calls.
    @discardableResult
    public static func bootstrap(sinks: [any LogSink], configuration: LogConfiguration? = nil) -> Bool {
        state.withLock { state in
            guard !state.bootstrapped else { return false }
            state.bootstrapped = true
            state.sinks = sinks
            if let configuration { apply(configuration, to: &state) }
            return true
        }
    }

    /// Replaces sinks and configuration at any time. For tests only: it bypasses the once-per-process rule.
    public static func bootstrapForTesting(sinks: [any LogSink], configuration: LogConfiguration) {
        state.withLock { state in
            state.sinks = sinks
            apply(configuration, to: &state)
        }
    }

    /// Shows private values in clear, for local debugging only. Refused (with a warning) when `CI` is set.
    public static func setRevealPrivateValues(_ reveal: Bool) {
        let allowed = !reveal || allowReveal()
        state.withLock { $0.revealPrivateValues = reveal && allowed }
    }

    /// The current configuration.
    public static var configuration: LogConfiguration {
        state.withLock { $0.configuration }
    }

    static func threshold(subsystem: String, category: String) -> LevelThreshold {
        state.withLock { state in
            let key = subsystem + ":" + category
            if let existing = state.thresholds[key] { return existing }
            let created = LevelThreshold(
                rawThreshold(state.configuration.threshold(subsystem: subsystem, category: category)))
            state.thresholds[key] = created
            return created
        }
    }

    private static func apply(_ configuration: LogConfiguration, to state: inout State) {
        state.configuration = configuration
        for (key, threshold) in state.thresholds {
            let separator = key.firstIndex(of: ":") ?? key.endIndex
            let subsystem = String(key[..<separator])
            let category = separator < key.endIndex ? String(key[key.index(after: separator)...]) : ""
            threshold.value.store(
                rawThreshold(configuration.threshold(subsystem: subsystem, category: category)), ordering: .relaxed)
        }
    }

    private static func rawThreshold(_ level: LogLevel?) -> UInt8 {
        level?.rawValue ?? UInt8.max
    }

    /// The slow path of an enabled log call: render once, hand to every sink.
    @usableFromInline
    static func emit(level: LogLevel, message: LogMessage, subsystem: String, category: String) {
        let (sinks, reveal) = state.withLock { ($0.sinks, $0.revealPrivateValues) }
        guard !sinks.isEmpty else { return }
        let entry = LogEntry(
            timestamp: Date().timeIntervalSince1970, level: level, subsystem: subsystem, category: category,
            message: message.rendered(revealingPrivateValues: reveal))
        for sink in sinks { sink.write(entry) }
    }

    private static func allowReveal() -> Bool {
        let ci = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        if ci == "true" || ci == "1" {
            warn("revealing private log values is refused because CI is set.")
            return false
        }
        return true
    }

    private static func warn(_ text: String) {
        FileHandle.standardError.write(Data("warning: NALLogging: \(text)\n".utf8))
    }
}
