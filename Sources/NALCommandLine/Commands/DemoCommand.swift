import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-cli demo`: a GitHub-like API run end to end, with no network: NALStubbing's `StubServer` answers on a loopback
/// port, called through the transport a `Client` uses by default (`DefaultTransport`), behind real middleware
/// (logging, access tokens, retry). `--live URL` runs the same story against a real httpbin.
enum DemoCommand: Command {
    static let name = "demo"
    static let abstract = "Run a GitHub-like API end to end: auth refresh, retry, pages, upload, download."
    static let usage = "nal-cli demo [--live <url>]"
    static let discussion = """
        Without --live, NALStubbing's StubServer answers every request on a loopback port, so nothing leaves the \
        machine. Requests go through Client's default transport (CurlTransport on Linux, URLSessionTransport \
        elsewhere). LoggingMiddleware logs each exchange, with secrets redacted.
        """
    static let options: [OptionSpec] = [
        .value("live", "url", "Run against a real httpbin at this URL instead of stubs.")
    ]

    /// The demo's state: the credentials the access-token middleware sends.
    actor Credentials {
        private(set) var token = Data("ada:expired".utf8).base64EncodedString()
        func store(_ new: String) { token = new }
    }

    static let fresh = Data("ada:s3cret".utf8).base64EncodedString()

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'")
        }
        let base: URL
        let listener: StubListener?
        let live: Bool
        if let text = arguments.value("live") {
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw UsageError(message: "'\(text)' is not an absolute URL")
            }
            base = url
            listener = nil
            live = true
        } else {
            bypassProxiesForLoopback()
            do {
                let stubs = try await stubServer.listen(port: 0)
                listener = stubs
                base = stubs.baseURL
            } catch {
                terminal.err("nal-cli demo: the stubs cannot listen on a loopback port: \(error)")
                return ExitCode.failure
            }
            live = false
        }
        let transport = DefaultTransport.make()
        var logging = LogConfiguration(defaultLevel: .notice)
        logging.subsystemLevels["dev.nal"] = .info
        // NAL_LOG, when set, chooses the levels instead.
        let fromEnvironment = ProcessInfo.processInfo.environment["NAL_LOG"] != nil
        LoggingSystem.bootstrap(
            sinks: [DemoLogSink(terminal: terminal)], configuration: fromEnvironment ? nil : logging)

        let story = DemoStory(base: base, transport: transport, live: live, terminal: terminal)
        terminal.out(
            terminal.bold("NAL demo") + ": a GitHub-like API "
                + (live
                    ? "against httpbin at \(base.absoluteString)"
                    : "served by StubServer on \(base.absoluteString), nothing leaves this machine")
                + ", through \(type(of: transport)) (Client's default here) and real middleware. Secrets are redacted "
                + "in the logs.")
        let passed = await story.run()
        await listener?.stop()
        terminal.out("")
        terminal.out(passed ? terminal.green("All five steps behaved as described.") : terminal.red("A step failed."))
        return passed ? ExitCode.success : ExitCode.failure
    }

    /// The stubs answer on 127.0.0.1: a proxy named by the environment (`http_proxy`), which CurlTransport would use,
    /// must not see the demo's requests or their credentials. Called before any transfer starts.
    static func bypassProxiesForLoopback() {
        let environment = ProcessInfo.processInfo.environment
        let hosts = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !hosts.contains("127.0.0.1"), !hosts.contains("*") else { return }
        setenv("no_proxy", (hosts + ["127.0.0.1"]).joined(separator: ","), 1)
    }

    /// The stubs that play the API, shaped as httpbin answers.
    static let stubServer: StubServer = {
        let server = StubServer()
        server.stub(
            .path("/basic-auth/ada/s3cret") && .header("Authorization", "Basic \(fresh)"),
            response: StubResponse(
                headers: ["Content-Type": "application/json"],
                body: Data(#"{"authenticated": true, "user": "ada"}"#.utf8)))
        server.stub(
            .path("/basic-auth/ada/s3cret"),
            response: StubResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="Fake Realm""#]))
        server.stub(.method(.post) && .path("/anything/login/oauth/access_token")) { request in
            let body = request.httpBody ?? Data()
            return .string(#"{"args": {}, "json": \#(String(decoding: body, as: UTF8.self))}"#)
        }
        server.stub(
            .path("/status/503"),
            responses: [StubResponse(status: 503, headers: ["Retry-After": "1"]), .string("ok")])
        server.stub(.path("/anything/user/repos")) { request in
            let page =
                URLComponents(url: request.url ?? URL(fileURLWithPath: "/"), resolvingAgainstBaseURL: false)?
                .queryItems?.first { $0.name == "page" }?.value ?? "1"
            var response = StubResponse.string(#"{"args": {"page": "\#(page)", "per_page": "2"}}"#)
            if page != "3" {
                response.headers["Link"] =
                    #"</anything/user/repos?page=\#((Int(page) ?? 1) + 1)>; rel="next""#
            }
            response.headers["Content-Type"] = "application/json"
            return response
        }
        server.stub(.method(.post) && .path("/post")) { request in
            .string(DemoMultipart.echo(request), status: 200)
        }
        server.stub(
            .path("/drip"), response: StubResponse(body: Data(count: 3_000_000)).throttled(bytesPerSecond: 3_000_000))
        return server
    }()
}

/// NAL's logs in the demo's output: indented and dimmed under the step they belong to.
struct DemoLogSink: LogSink {
    let terminal: Terminal

    func write(_ entry: LogEntry) {
        let lines = entry.message.split(separator: "\n", omittingEmptySubsequences: false)
        terminal.out(lines.map { terminal.dim("     log  " + $0) }.joined(separator: "\n"))
    }
}

/// httpbin's echo of a multipart form, for the stub: text fields as they are, files by size.
enum DemoMultipart {
    static func echo(_ request: URLRequest) -> String {
        let body = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
        let type = request.value(forHTTPHeaderField: "Content-Type") ?? ""
        guard let boundary = type.components(separatedBy: "boundary=").last else { return "{}" }
        var form: [String: String] = [:]
        var files: [String: String] = [:]
        for part in body.components(separatedBy: "--\(boundary)").dropFirst() {
            guard let split = part.range(of: "\r\n\r\n") else { continue }
            let head = part[..<split.lowerBound]
            var content = String(part[split.upperBound...])
            // "\r\n" is one Character in Swift.
            if content.hasSuffix("\r\n") { content.removeLast() }
            guard
                let name = head.components(separatedBy: "name=\"").dropFirst().first?.components(separatedBy: "\"")
                    .first
            else { continue }
            if head.contains("filename=") { files[name] = content } else { form[name] = content }
        }
        let encoded = try? JSONEncoder().encode(["form": form, "files": files])
        return encoded.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
