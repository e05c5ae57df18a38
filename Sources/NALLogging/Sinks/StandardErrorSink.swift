/// Text lines: `2026-11-21T19:55:57.123Z notice dev.nal:request prepared GET https://…`.
///
/// Each entry is one `write` under a lock, so lines from concurrent tasks never interleave.
public struct StandardErrorSink: LogSink {
    private let writer: FileDescriptorWriter

    /// Writes to standard error, or to another open file descriptor.
    public init(fileDescriptor: Int32 = 2) {
        writer = FileDescriptorWriter(fileDescriptor: fileDescriptor)
    }

    /// Writes one line.
    public func write(_ entry: LogEntry) {
        writer.writeLine(Self.format(entry))
    }

    /// The line for `entry`, without the newline.
    public static func format(_ entry: LogEntry) -> String {
        TimestampFormatter.iso8601(entry.timestamp) + " " + entry.level.description + " " + entry.subsystem + ":"
            + entry.category + " " + entry.message.replacingNewlines
    }
}

extension String {
    /// One entry, one line: embedded line breaks are shown as `\n` and `\r`.
    var replacingNewlines: String {
        guard utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return self }
        var result = ""
        for character in unicodeScalars {
            switch character {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
