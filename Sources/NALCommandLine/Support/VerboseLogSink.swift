import Foundation
import NALLogging

/// NAL's logs for `request -v`, on standard error and readable on a terminal, as curl -v shows an exchange: an
/// entry's first line after its time, level and category, each further line (a header) on a line of its own.
/// Control and format characters a server sent (an escape sequence in a header) are shown escaped (`TerminalText`).
struct VerboseLogSink: LogSink {
    let terminal: Terminal

    func write(_ entry: LogEntry) {
        terminal.err(Self.format(entry))
    }

    /// `12:00:01.250Z notice request → GET https://…`, then the entry's further lines indented under it.
    static func format(_ entry: LogEntry) -> String {
        let time = clockTime(entry.timestamp)
        let lines = entry.message.split(separator: "\n", omittingEmptySubsequences: false).map {
            TerminalText.visible($0)
        }
        let head = "\(time) \(entry.level) \(entry.category) \(lines.first ?? "")"
        return ([head] + lines.dropFirst().map { "  " + $0 }).joined(separator: "\n")
    }

    /// `12:00:01.250Z`: the UTC time of day of `timestamp` (seconds since 1970), to the millisecond.
    static func clockTime(_ timestamp: Double) -> String {
        guard timestamp.isFinite, timestamp >= 0, timestamp < 1e12 else { return "--:--:--.---Z" }
        let milliseconds = Int64((timestamp * 1000).rounded(.down)) % 86_400_000
        let parts = [milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60]
        let clock = parts.map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        let fraction = milliseconds % 1000
        return clock + "." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)Z"
    }
}
