/// Keeps entries in memory, for tests.
public final class InMemorySink: LogSink {
    private let storage = Locked<[LogEntry]>([])

    /// Creates an empty sink.
    public init() {}

    /// Stores one entry.
    public func write(_ entry: LogEntry) {
        storage.withLock { $0.append(entry) }
    }

    /// Every entry so far, oldest first.
    public var entries: [LogEntry] { storage.withLock { $0 } }

    /// Entries matching every given criterion.
    public func entries(
        level: LogLevel? = nil, subsystem: String? = nil, category: String? = nil, containing text: String? = nil
    ) -> [LogEntry] {
        entries.filter { entry in
            (level == nil || entry.level == level) && (subsystem == nil || entry.subsystem == subsystem)
                && (category == nil || entry.category == category)
                && (text.map { entry.message.contains($0) } ?? true)
        }
    }

    /// The messages of the entries matching every given criterion.
    public func messages(level: LogLevel? = nil, subsystem: String? = nil, category: String? = nil) -> [String] {
        entries(level: level, subsystem: subsystem, category: category).map(\.message)
    }

    /// Whether any entry's message contains `text`.
    public func contains(_ text: String) -> Bool {
        entries.contains { $0.message.contains(text) }
    }

    /// Forgets every entry.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
