/// One written log entry, as sinks receive it.
public struct LogEntry: Sendable, Equatable {
    /// When the entry was made, in seconds since 1970-01-01 UTC.
    public let timestamp: Double
    /// Its level.
    public let level: LogLevel
    /// The logger's subsystem.
    public let subsystem: String
    /// The logger's category.
    public let category: String
    /// The rendered message, private values masked unless revealing is on.
    public let message: String

    /// Creates an entry.
    public init(timestamp: Double, level: LogLevel, subsystem: String, category: String, message: String) {
        self.timestamp = timestamp
        self.level = level
        self.subsystem = subsystem
        self.category = category
        self.message = message
    }
}
