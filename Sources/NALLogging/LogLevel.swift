/// How important a log entry is, from least to most severe. The same five levels as `os.Logger`.
///
/// `os.Logger`'s aliases map onto them: `trace` is `debug`, `warning` is `error`, `critical` is `fault`.
public enum LogLevel: UInt8, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Detail for debugging: a request's lifecycle step by step.
    case debug = 1
    /// Helpful but not essential information.
    case info = 2
    /// Something worth knowing happened. The default threshold.
    case notice = 3
    /// Something failed.
    case error = 4
    /// A bug or a broken invariant.
    case fault = 5

    /// The level's name, as used in `NAL_LOG` and in sink output.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .error: "error"
        case .fault: "fault"
        }
    }

    /// Whether `lhs` is less severe than `rhs`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
