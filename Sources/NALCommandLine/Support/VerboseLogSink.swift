import Foundation
import NALLogging

/// NAL's logs for `request -v`, on standard error and readable on a terminal, as curl -v shows an exchange: an
/// entry's first line after its time, level and category, each further line (a header) on a line of its own.
/// Control characters a server sent (an escape sequence in a header) are shown escaped, never sent to the terminal.
struct VerboseLogSink: LogSink {
    let terminal: Terminal

    func write(_ entry: LogEntry) {
        terminal.err(Self.format(entry))
    }

    /// `12:00:01.250 info request → GET https://…`, then the entry's further lines indented under it.
    static func format(_ entry: LogEntry) -> String {
        let stamp = TimestampFormatter.iso8601(entry.timestamp)
        let time = stamp.split(separator: "T").last.map { String($0.dropLast()) } ?? stamp
        let lines = entry.message.split(separator: "\n", omittingEmptySubsequences: false).map { visible($0) }
        let head = "\(time) \(entry.level) \(entry.category) \(lines.first ?? "")"
        return ([head] + lines.dropFirst().map { "  " + $0 }).joined(separator: "\n")
    }

    /// `line` with every control character but a tab written as `\u{1B}`.
    static func visible(_ line: Substring) -> String {
        var result = ""
        for scalar in line.unicodeScalars {
            if (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
