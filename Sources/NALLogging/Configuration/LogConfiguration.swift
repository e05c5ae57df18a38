/// Which levels are enabled, per subsystem and category. Usually read from `NAL_LOG`:
///
/// - `NAL_LOG=info`: everything at `info` and above.
/// - `NAL_LOG=dev.nal:request=debug,*=notice`: NAL's request category at `debug`, everything else at `notice`.
///
/// An entry is `level` or `selector=level`; a selector is `*`, `subsystem`, `subsystem:*` or `subsystem:category`.
/// The most specific selector wins. Levels are `debug`, `info`, `notice`, `error`, `fault`, the aliases `trace`,
/// `warning` and `critical`, and `off`.
public struct LogConfiguration: Sendable, Equatable {
    /// A parse failure of a configuration spec.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The entry that is wrong.
        public let entry: String
        /// Why.
        public let reason: String

        /// A sentence naming the entry and what is wrong with it.
        public var description: String { "invalid entry '\(entry)': \(reason)" }
    }

    /// The threshold where no selector matches. `notice` by default.
    public var defaultLevel: LogLevel?
    /// Thresholds by subsystem; `nil` means off.
    public var subsystemLevels: [String: LogLevel?] = [:]
    /// Thresholds by `subsystem:category`; `nil` means off.
    public var categoryLevels: [String: LogLevel?] = [:]

    /// `notice` for everything.
    public init(defaultLevel: LogLevel? = .notice) {
        self.defaultLevel = defaultLevel
    }

    /// The lowest enabled level for a pair, or `nil` when it is off.
    public func threshold(subsystem: String, category: String) -> LogLevel? {
        if let level = categoryLevels[subsystem + ":" + category] { return level }
        if let level = subsystemLevels[subsystem] { return level }
        return defaultLevel
    }

    /// Parses a spec such as `dev.nal:request=debug,*=notice`.
    public static func parse(_ spec: String) throws(ParseError) -> LogConfiguration {
        var configuration = LogConfiguration()
        let entries = spec.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace }
        for entry in entries {
            guard !entry.isEmpty else { throw ParseError(entry: entry, reason: "empty entry") }
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            switch parts.count {
            case 1:
                configuration.defaultLevel = try level(parts[0], in: entry)
            case 2:
                let threshold = try level(parts[1], in: entry)
                try configuration.apply(selector: parts[0], threshold: threshold, entry: entry)
            default:
                throw ParseError(entry: entry, reason: "more than one '='")
            }
        }
        return configuration
    }

    private mutating func apply(selector: String, threshold: LogLevel?, entry: String) throws(ParseError) {
        guard !selector.isEmpty else { throw ParseError(entry: entry, reason: "missing selector before '='") }
        if selector == "*" {
            defaultLevel = threshold
            return
        }
        let pieces = selector.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count <= 2, !pieces[0].isEmpty, pieces[0] != "*" else {
            throw ParseError(entry: entry, reason: "selector must be '*', 'subsystem' or 'subsystem:category'")
        }
        if pieces.count == 1 || pieces[1] == "*" {
            subsystemLevels[pieces[0]] = .some(threshold)
        } else if pieces[1].isEmpty {
            throw ParseError(entry: entry, reason: "empty category after ':'")
        } else {
            categoryLevels[selector] = .some(threshold)
        }
    }

    private static func level(_ name: String, in entry: String) throws(ParseError) -> LogLevel? {
        switch name.lowercased() {
        case "debug", "trace": return .debug
        case "info": return .info
        case "notice": return .notice
        case "error", "warning": return .error
        case "fault", "critical": return .fault
        case "off", "none": return nil
        default:
            throw ParseError(
                entry: entry,
                reason:
                    "unknown level '\(name)'; use debug, info, notice, error, fault, trace, warning, critical or off"
            )
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
