/// One JSON object per line: `{"timestamp":"…","level":"info","subsystem":"…","category":"…","message":"…"}`.
public struct JSONLinesSink: LogSink {
    private let writer: FileDescriptorWriter

    /// Writes to standard error, or to another open file descriptor.
    public init(fileDescriptor: Int32 = 2) {
        writer = FileDescriptorWriter(fileDescriptor: fileDescriptor)
    }

    /// Writes one line.
    public func write(_ entry: LogEntry) {
        writer.writeLine(Self.format(entry))
    }

    /// The JSON object for `entry`, on one line.
    public static func format(_ entry: LogEntry) -> String {
        "{\"timestamp\":" + quoted(TimestampFormatter.iso8601(entry.timestamp)) + ",\"level\":"
            + quoted(entry.level.description) + ",\"subsystem\":" + quoted(entry.subsystem) + ",\"category\":"
            + quoted(entry.category) + ",\"message\":" + quoted(entry.message) + "}"
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
