#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text lines: `2026-11-21T19:55:57.123Z notice dev.nal:request prepared GET https://…`.
///
/// Each entry is one `write` under a lock, so lines from concurrent tasks never interleave. Piped or redirected,
/// an entry is one line (its line breaks shown as `\n`), so every line of a log file is one entry; on a terminal,
/// an entry's further lines (a request's headers) are written on lines of their own, indented under it.
public struct StandardErrorSink: LogSink {
    private let writer: FileDescriptorWriter
    private let isTerminal: Bool

    /// Writes to standard error, or to another open file descriptor.
    public init(fileDescriptor: Int32 = 2) {
        writer = FileDescriptorWriter(fileDescriptor: fileDescriptor)
        isTerminal = isatty(fileDescriptor) == 1
    }

    /// Writes one entry: one line, or on a terminal one line and its indented continuation lines.
    public func write(_ entry: LogEntry) {
        writer.writeLine(Self.format(entry, multiline: isTerminal))
    }

    /// The line for `entry`, without the newline.
    public static func format(_ entry: LogEntry) -> String {
        format(entry, multiline: false)
    }

    /// The text for `entry`, without the final newline: with `multiline`, each line break of the message starts an
    /// indented line (so that no message can pass for an entry of its own), else one line with `\n` shown.
    public static func format(_ entry: LogEntry, multiline: Bool) -> String {
        let message = multiline ? entry.message.indentingContinuationLines : entry.message.replacingNewlines
        return TimestampFormatter.iso8601(entry.timestamp) + " " + entry.level.description + " " + entry.subsystem
            + ":" + entry.category + " " + message
    }
}

extension String {
    /// One entry, one line: embedded line breaks are shown as `\n` and `\r`.
    var replacingNewlines: String { replacingLineBreaks(newline: "\\n") }

    /// Each line break followed by four spaces of indentation; a carriage return shown as `\r`, so that it cannot
    /// return to the start of the line and overwrite what the entry began with.
    var indentingContinuationLines: String { replacingLineBreaks(newline: "\n    ") }

    /// The string with each `\n` written as `newline` and each `\r` as the two characters `\r`.
    private func replacingLineBreaks(newline: String) -> String {
        guard utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return self }
        var result = ""
        for character in unicodeScalars {
            switch character {
            case "\n": result += newline
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
