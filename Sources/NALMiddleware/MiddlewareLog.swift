import NALLogging

/// The loggers of NALMiddleware, built once: creating a `Logger` takes a lock.
enum MiddlewareLog {
    static let middleware = Logger(nal: .middleware)
    static let request = Logger(nal: .request)
    static let response = Logger(nal: .response)
}
