import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint that asks `AccessTokenMiddleware` for a token of the given type.
struct AuthorizedEndpoint: RemoteService, AccessTokenAuthorizable {
    var base = TestEndpoint()
    var accessTokenType: AccessTokenType = .bearer

    var baseURL: URL { base.baseURL }
    var path: String { base.path }
    var method: HTTPMethod { base.method }
    var requestType: RequestType { base.requestType }
    var headers: [String: String]? { base.headers }
    var validation: RequestValidation { base.validation }
}

/// Answers with the statuses of a script, one per request (the last one repeats), and records each request with
/// the context it came with.
final class ScriptedTransport: Transport {
    struct Step: Sendable {
        var status: Int
        var headers: [String: String] = [:]
    }

    private let script: [Step]
    private let delay: Duration?
    private let sent = Locked<[(request: URLRequest, context: TransportContext)]>([])

    init(_ statuses: [Int], headers: [String: String] = [:], delay: Duration? = nil) {
        script = statuses.map { Step(status: $0, headers: headers) }
        self.delay = delay
    }

    var requests: [URLRequest] { sent.withLock { $0.map(\.request) } }
    var contexts: [TransportContext] { sent.withLock { $0.map(\.context) } }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let index = sent.withLock { sent -> Int in
            sent.append((request, context))
            return sent.count - 1
        }
        if let delay {
            do { try await Task.sleep(for: delay) } catch { throw .cancelled }
        }
        let step = script[min(index, script.count - 1)]
        guard let url = request.url,
            let http = HTTPURLResponse(
                url: url, statusCode: step.status, httpVersion: "HTTP/1.1", headerFields: step.headers)
        else { throw .transport(URLError(.badURL)) }
        return Response(
            request: request, httpResponse: http, data: Data("\(step.status)".utf8),
            timing: ResponseTiming(start: Date(), duration: .zero))
    }
}

/// Accepts only `Bearer <current token>`, answering 401 otherwise, after an optional delay; counts what it sees.
final class TokenServer: Transport {
    private let state = Locked((valid: "fresh", requests: 0, refreshes: 0))
    let delay: Duration

    init(validToken: String = "fresh", delay: Duration = .milliseconds(20)) {
        self.delay = delay
        state.withLock { $0.valid = validToken }
    }

    var requests: Int { state.withLock { $0.requests } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    /// What a refresh does: makes `token` the valid one.
    func rotate(to token: String) {
        state.withLock {
            $0.valid = token
            $0.refreshes += 1
        }
    }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let valid = state.withLock { state -> String in
            state.requests += 1
            return state.valid
        }
        do { try await Task.sleep(for: delay) } catch { throw .cancelled }
        let authorized = request.value(forHTTPHeaderField: "Authorization") == "Bearer \(valid)"
        return try MemoryTransport.response(to: request, status: authorized ? 200 : 401)
    }
}

/// Records the order middleware run in.
final class Trace: Sendable {
    private let events = Locked<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

struct Tracing: Middleware {
    let name: String
    let trace: Trace

    func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        trace.record("\(name)>")
        defer { trace.record("\(name)<") }
        return try await next(request, context)
    }
}
