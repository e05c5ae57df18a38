// A reverse proxy whose every request goes through `Client(middleware: [HTTPCache(...)], transport: ...)`: the
// shape in which the public HTTP cache test suite (cache-tests.fyi) measures a cache. It listens on a loopback port
// and forwards to one origin. See Conformance/README.md.
//
//     nal-cache-proxy --origin http://localhost:8000 [--port 8001] [--transport curl|urlsession]
//                     [--storage directory|memory] [--folder DIR] [--shared]

import Foundation
import NALCore
import NALMiddleware
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One forwarded request.
struct Forwarded: RemoteService {
    var baseURL: URL
    var path: String { "" }
    var method: HTTPMethod
    var requestType: RequestType
    var headers: [String: String]?
    var validation: RequestValidation { .none }
}

/// The fields a proxy does not forward: the connection's own, and the framing NAL sets.
let hopByHop: Set<String> = [
    "host", "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    "content-length",
]

func option(_ name: String, default value: String? = nil) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("nal-cache-proxy: \(message)\n".utf8))
    exit(2)
}

guard let originText = option("origin"), let origin = URL(string: originText) else {
    fail("--origin URL is required")
}
let port = Int(option("port", default: "8001") ?? "") ?? 8001
let folder = URL(
    fileURLWithPath: option("folder", default: NSTemporaryDirectory() + "nal-cache-proxy-\(getpid())") ?? "")
let storage: HTTPCache.Storage =
    option("storage") == "memory"
    ? .memory(maximumBytes: 256 << 20) : .directory(folder, maximumBytes: 256 << 20)
let transport: any Transport
switch option("transport", default: "curl") {
case "urlsession":
    transport = URLSessionTransport(redirectPolicy: .doNotFollow)
case "curl":
    #if os(Linux)
        do {
            transport = try CurlTransport(redirectPolicy: .doNotFollow)
        } catch {
            fail("CurlTransport: \(error)")
        }
    #else
        fail("CurlTransport is Linux's")
    #endif
default:
    fail("--transport is curl or urlsession")
}
let cache = HTTPCache(storage: storage, isShared: CommandLine.arguments.contains("--shared"))
let client = Client<Forwarded>(middleware: [cache], transport: transport)

let server = StubServer()
server.stub(.any) { request in
    guard let url = request.url,
        var target = URLComponents(url: origin, resolvingAgainstBaseURL: false)
    else { return .networkError(.badURL) }
    target.percentEncodedPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
    target.percentEncodedQuery = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
    guard let targetURL = target.url else { return .networkError(.badURL) }
    let headers = (request.allHTTPHeaderFields ?? [:]).filter { !hopByHop.contains($0.key.lowercased()) }
    let body = request.httpBody ?? Data()
    let forwarded = Forwarded(
        baseURL: targetURL, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
        requestType: body.isEmpty ? .plain : .data(body), headers: headers)
    let response: Response
    do {
        response = try await client.request(forwarded)
    } catch {
        // As a proxy answers when its upstream fails: the client sees a status, not a dropped connection.
        return StubResponse(status: 502, headers: ["Content-Type": "text/plain"], body: Data("\(error)".utf8))
    }
    var fields: [String: String] = [:]
    for field in response.headers.fields where !hopByHop.contains(field.name.lowercased()) {
        fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
    }
    return StubResponse(status: response.statusCode, headers: fields, body: response.data)
}

do {
    let listener = try await server.listen(port: port)
    print("nal-cache-proxy: \(listener.baseURL.absoluteString) -> \(origin.absoluteString), storage \(storage)")
    while true { try await Task.sleep(for: .seconds(3600)) }
} catch {
    fail("\(error)")
}
