public import Synchronization

/// Writes log entries for one subsystem and category, like `os.Logger` on Apple platforms.
///
/// ```swift
/// let logger = Logger(subsystem: "com.example.app", category: "sync")
/// logger.info("fetched \(count) items for \(userID)")   // userID is <private> unless marked .public
/// ```
///
/// A call below the configured level costs one atomic load: the message is an autoclosure and is never built.
/// Create loggers once (a `static let`) rather than per call; creating one takes a lock.
public struct Logger: Sendable {
    /// Reverse-DNS name of the component, for example `dev.nal`.
    public let subsystem: String
    /// Area within the subsystem, for example `request`.
    public let category: String
    @usableFromInline let threshold: LevelThreshold

    /// Creates a logger whose level follows `NAL_LOG` and `LoggingSystem` configuration for this pair.
    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
        threshold = LoggingSystem.threshold(subsystem: subsystem, category: category)
    }

    /// Whether entries at `level` are written.
    @inlinable
    public func isEnabled(_ level: LogLevel) -> Bool {
        level.rawValue >= threshold.value.load(ordering: .relaxed)
    }

    /// Writes `message` at `level` if that level is enabled.
    @inlinable
    public func log(level: LogLevel, _ message: @autoclosure () -> LogMessage) {
        guard isEnabled(level) else { return }
        LoggingSystem.emit(level: level, message: message(), subsystem: subsystem, category: category)
    }

    /// Writes at `debug`.
    @inlinable public func debug(_ message: @autoclosure () -> LogMessage) { log(level: .debug, message()) }
    /// Writes at `info`.
    @inlinable public func info(_ message: @autoclosure () -> LogMessage) { log(level: .info, message()) }
    /// Writes at `notice`, the default level.
    @inlinable public func notice(_ message: @autoclosure () -> LogMessage) { log(level: .notice, message()) }
    /// Writes at `error`.
    @inlinable public func error(_ message: @autoclosure () -> LogMessage) { log(level: .error, message()) }
    /// Writes at `fault`.
    @inlinable public func fault(_ message: @autoclosure () -> LogMessage) { log(level: .fault, message()) }
    /// `os.Logger`'s alias for `debug`.
    @inlinable public func trace(_ message: @autoclosure () -> LogMessage) { log(level: .debug, message()) }
    /// `os.Logger`'s alias for `error`.
    @inlinable public func warning(_ message: @autoclosure () -> LogMessage) { log(level: .error, message()) }
    /// `os.Logger`'s alias for `fault`.
    @inlinable public func critical(_ message: @autoclosure () -> LogMessage) { log(level: .fault, message()) }
}

/// The lowest enabled level of one subsystem and category, shared by every logger for that pair and updated in
/// place when the configuration changes.
@usableFromInline
final class LevelThreshold: Sendable {
    /// A `LogLevel` raw value; `UInt8.max` means off.
    @usableFromInline let value: Atomic<UInt8>

    init(_ threshold: UInt8) {
        value = Atomic(threshold)
    }
}

extension Logger {
    /// The subsystem NAL's own modules log under.
    public static let nalSubsystem = "dev.nal"

    /// Categories NAL's modules use: Mockingbird's four plus `stubbing`.
    public enum NALCategory: String, Sendable, CaseIterable {
        /// A whole call, from endpoint to result.
        case requestOperation = "request_operation"
        /// Requests as prepared and sent.
        case request
        /// Responses as received and validated.
        case response
        /// Middleware decisions.
        case middleware
        /// Stubs served instead of the network.
        case stubbing
    }

    /// A logger for one of NAL's own categories.
    public init(nal category: NALCategory) {
        self.init(subsystem: Logger.nalSubsystem, category: category.rawValue)
    }
}
