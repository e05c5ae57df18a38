import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stand-in for the README's `GitHub` endpoint, so that the middleware examples below compile in this target.
enum GitHub: RemoteService, Equatable {
    case zen, userProfile(String)
    var baseURL: URL { URL(string: "https://api.github.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
        switch self {
        case .zen: "zen"
        case .userProfile(let login): "users/\(pathSegment: login)"
        }
    }
    var method: HTTPMethod { .get }
    var requestType: RequestType { .plain }
}

/// Keeps a token, as an app would; the README's refresh closure calls it.
actor TokenStore {
    var token = "old"
    func current() -> String { token }
    func refresh() { token = "new" }
}

// Docs: begin middleware-custom
/// Signs every request with an HMAC of its method and path, and records how long the
/// server took.
struct Signing: Middleware {
    let sign: @Sendable (String) -> String

    func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let signature = sign(
            "\(request.httpMethod ?? "GET") \(request.url?.path ?? "")")
        request.setValue(signature, forHTTPHeaderField: "X-Signature")
        let response = try await next(request, context)
        print("\(response.statusCode) in \(response.timing.duration)")
        return response
    }
}
// Docs: end middleware-custom

// Docs: begin middleware-auth
extension GitHub: AccessTokenAuthorizable {
    var accessTokenType: AccessTokenType { self == .zen ? .none : .bearer }
}
// Docs: end middleware-auth

@Suite("README middleware examples")
struct READMEMiddlewareExamples {
    @Test("the README's middleware stack signs, authorizes, retries and logs")
    func stack() async throws {
        let transport = ScriptedTransport([503, 200])
        let tokens = TokenStore()
        // Docs: begin middleware-client
        let client = Client<GitHub>(
            middleware: [
                // outermost: sees what the caller sees
                LoggingMiddleware(options: [.headers, .timing]),
                // 408, 429, 500, 502-504, lost connections; idempotent methods
                RetryMiddleware(maxAttempts: 3),
                AccessTokenMiddleware(
                    token: { _ in await tokens.current() },
                    // on a 401: one refresh, then one replay
                    refresh: { await tokens.refresh() }),
                DefaultHeadersMiddleware(),  // User-Agent, Accept-Language, Accept-Encoding
                Signing(sign: { "sig:" + $0 }),  // innermost: signs exactly what is sent
            ],
            transport: transport)
        // Docs: end middleware-client
        let response = try await client.request(.userProfile("octocat"))
        #expect(response.statusCode == 200)
        #expect(transport.requests.count == 2)
        let sent = try #require(transport.requests.last)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer old")
        #expect(sent.value(forHTTPHeaderField: "X-Signature") == "sig:GET /users/octocat")
        #expect(sent.value(forHTTPHeaderField: "User-Agent")?.hasPrefix("nal/") == true)
        _ = try await client.request(.zen)
        #expect(transport.requests.last?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("a formatter lays entries out as Moya's NetworkLoggerPlugin did")
    func formatter() async throws {
        try await LogCapture.capture("dev.nal=notice,*=off") { sink in
            // Docs: begin logging-formatter
            let logging = LoggingMiddleware(options: [.headers]) { entry in
                let status = entry.statusCode.map { " \($0)" } ?? ""
                return
                    "Moya_Logger: [\(Date())] \(entry.kind):\(status) \(entry.method) \(entry.url)"
            }
            // Docs: end logging-formatter
            let client = Client<GitHub>(middleware: [logging], transport: ScriptedTransport([200]))
            _ = try await client.request(.zen)
            let lines = sink.messages(subsystem: "dev.nal", category: "response")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("Moya_Logger: [") == true)
            #expect(lines.first?.hasSuffix("] response: 200 GET https://api.github.com/zen") == true)
        }
    }
}
