import NALLogging

/// NALCore's loggers, built once: creating a `Logger` takes a lock.
enum CoreLog {
    static let request = Logger(nal: .request)
    static let requestOperation = Logger(nal: .requestOperation)
}
