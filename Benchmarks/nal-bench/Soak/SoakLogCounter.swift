import NALLogging

/// The soak's log sink: counts the entries the logging middleware writes and keeps none. An in-memory sink would
/// grow by an entry for every failed call, which the RSS bound would read as the client's growth.
final class SoakLogCounter: LogSink {
    private let entries = Locked(0)

    func write(_ entry: LogEntry) {
        entries.withLock { $0 += 1 }
    }

    var count: Int { entries.withLock { $0 } }
}
