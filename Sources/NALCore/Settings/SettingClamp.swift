package import NALLogging

/// Brings a numeric setting given to an initialiser or factory into its valid range, and logs one warning when it
/// had to: a bad setting is refused, not kept, without making an initialiser that never threw start to throw.
///
/// The warning names the type and the setting, the value given and the value used, for example
/// `URLSessionTransport maximumResponseSize -5 is below 0; using 0`. Per-call settings are not clamped: the call
/// fails with `NALError.invalidRequest` instead (see `RequestOptions`).
package enum SettingClamp {
    /// The longest wait NAL sleeps for, whatever a setting says: a year. `Task.sleep` traps past about 292 years of
    /// nanoseconds, so a wait taken from a public `var` is bounded by this where it is used.
    package static let longestWait: Duration = .seconds(365 * 24 * 3600)

    /// `value` brought into `range`; `setting` is `Type setting`, as the warning shows it.
    package static func clamp<Value: Comparable>(
        _ value: Value, to range: ClosedRange<Value>, _ setting: @autoclosure () -> String,
        log: @autoclosure () -> Logger
    ) -> Value {
        if value < range.lowerBound {
            warn(
                setting(), given: "\(value)", problem: "is below \(range.lowerBound)", used: "\(range.lowerBound)",
                log())
            return range.lowerBound
        }
        if value > range.upperBound {
            warn(
                setting(), given: "\(value)", problem: "is above \(range.upperBound)", used: "\(range.upperBound)",
                log())
            return range.upperBound
        }
        return value
    }

    /// `value`, at least `minimum`.
    package static func clamp<Value: Comparable>(
        _ value: Value, atLeast minimum: Value, _ setting: @autoclosure () -> String, log: @autoclosure () -> Logger
    ) -> Value {
        guard value < minimum else { return value }
        warn(setting(), given: "\(value)", problem: "is below \(minimum)", used: "\(minimum)", log())
        return minimum
    }

    /// `value` brought into `range`, an infinity to the nearer bound, and NaN, which is nearer to nothing, to
    /// `fallback`.
    package static func clamp(
        _ value: Double, to range: ClosedRange<Double>, ifNaN fallback: Double, _ setting: @autoclosure () -> String,
        log: @autoclosure () -> Logger
    ) -> Double {
        guard value.isNaN else { return clamp(value, to: range, setting(), log: log()) }
        warn(setting(), given: "\(value)", problem: "is not a number", used: "\(fallback)", log())
        return fallback
    }

    /// A wait taken from a setting that may hold anything (a public `var`), as `Task.sleep` can take it: from zero
    /// to `longestWait`. Silent: the initialiser already warned about what it was given.
    package static func sleepable(_ wait: Duration) -> Duration {
        min(max(.zero, wait), longestWait)
    }

    private static func warn(_ setting: String, given: String, problem: String, used: String, _ log: Logger) {
        log.warning(
            "\(setting, privacy: .public) \(given, privacy: .public) \(problem, privacy: .public); using \(used, privacy: .public)"
        )
    }
}
