import Foundation
import NALCore
import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Does nothing but pass the request on: the cost of one layer.
struct PassThrough: Middleware {
    func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        try await next(request, context)
    }
}

enum MiddlewareBench {
    static let none = Client<UserAPI>(transport: InstantTransport())
    static let five = Client<UserAPI>(
        middleware: Array(repeating: PassThrough(), count: 5), transport: InstantTransport())
    /// Logging at `info`, which the benchmark's configuration (`*=notice`) turns off: the cost of a disabled logger.
    static let logging = Client<UserAPI>(
        middleware: [LoggingMiddleware(level: .info)], transport: InstantTransport())
}

extension Benchmark {
    static let middlewareScenarios: [Benchmark] = [
        Benchmark(
            "middleware.chain", measures: "Five pass-through middleware around the same call: the cost per middleware.",
            comparedWith: ["reference.middleware.none"]
        ) { n in
            for _ in 0..<n { blackHole(try await MiddlewareBench.five.request(.user("octocat"))) }
        },
        .reference("reference.middleware.none", measures: "The same call through Client with no middleware.") { n in
            for _ in 0..<n { blackHole(try await MiddlewareBench.none.request(.user("octocat"))) }
        },
        Benchmark(
            "middleware.logging.disabled",
            measures: "LoggingMiddleware whose category is off: what logging costs when nobody reads it.",
            comparedWith: ["reference.middleware.none"]
        ) { n in
            for _ in 0..<n { blackHole(try await MiddlewareBench.logging.request(.user("octocat"))) }
        },
    ]
}
