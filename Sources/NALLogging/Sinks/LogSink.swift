/// Receives written log entries. Several sinks can be active at once; each must be safe to call from any thread.
public protocol LogSink: Sendable {
    /// Writes one entry.
    func write(_ entry: LogEntry)
}
