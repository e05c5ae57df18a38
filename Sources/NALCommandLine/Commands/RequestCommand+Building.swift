import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turning the command line into an endpoint and a client.
extension RequestCommand {
    /// The endpoint the command line describes; `standardInput` is the spooled copy of standard input for
    /// `--data @-`.
    static func makeTarget(_ arguments: ParsedArguments, standardInput: URL? = nil) throws(UsageError) -> Target {
        let method = HTTPMethod(rawValue: arguments.positionals[0])
        guard let url = URL(string: arguments.positionals[1]), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            let shown = SensitiveData.current.redacting(url: arguments.positionals[1])
            throw UsageError(message: "'\(TerminalText.visible(shown))' is not an absolute http or https URL")
        }
        var headers: [String: String] = [:]
        for header in arguments.all("header") {
            guard let colon = header.firstIndex(of: ":") else {
                // Only its first word: the rest may be a secret typed without its colon.
                let start = header.prefix { $0 != " " }.prefix(40)
                throw UsageError(
                    message: "the header '\(TerminalText.visible(start))…' has no ':'; write it as 'Name: value'")
            }
            headers[header[..<colon].trimmingCharacters(in: .whitespaces)] =
                header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if let token = arguments.value("bearer") { headers["Authorization"] = "Bearer \(token)" }
        if let credentials = arguments.value("basic") {
            guard credentials.contains(":") else { throw UsageError(message: "--basic takes user:password") }
            headers["Authorization"] = "Basic \(Data(credentials.utf8).base64EncodedString())"
        }
        let query = try KeyValueArgument.parameters(arguments.all("query"), option: "--query")
        return Target(
            baseURL: url, method: method,
            requestType: try requestType(arguments, url: url, query: query, standardInput: standardInput),
            headers: headers.isEmpty ? nil : headers, timeout: try seconds(arguments, "timeout"),
            totalTimeout: try seconds(arguments, "max-time"))
    }

    static func requestType(
        _ arguments: ParsedArguments, url: URL, query: Parameters, standardInput: URL?
    ) throws(UsageError) -> RequestType {
        let bodies = ["json", "json-body", "form", "data", "multipart"].filter {
            !arguments.all($0).isEmpty
        }
        guard bodies.count <= 1 else {
            throw UsageError(message: "--\(bodies[0]) and --\(bodies[1]) cannot be combined: a request has one body")
        }
        if let file = try downloadFile(arguments, url: url) {
            guard bodies.isEmpty else {
                throw UsageError(message: "--output downloads; it cannot be combined with a body")
            }
            return .downloadParameters(query, encoding: URLEncoding.queryString, destination: .file(file))
        }
        let json = try KeyValueArgument.parameters(arguments.all("json"), option: "--json")
        let form = try KeyValueArgument.parameters(arguments.all("form"), option: "--form")
        switch bodies.first {
        case "json":
            return .compositeParameters(bodyParameters: json, bodyEncoding: JSONEncoding.default, urlParameters: query)
        case "form":
            return .compositeParameters(bodyParameters: form, bodyEncoding: URLEncoding.httpBody, urlParameters: query)
        case "json-body":
            let file = URL(fileURLWithPath: arguments.value("json-body") ?? "")
            guard let data = try? Data(contentsOf: file) else {
                throw UsageError(message: "cannot read the JSON body \(file.path)")
            }
            guard (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil else {
                throw UsageError(message: "\(file.path) is not valid JSON")
            }
            return .compositeData(data, urlParameters: query)
        case "data":
            let value = arguments.value("data") ?? ""
            guard value.hasPrefix("@") else { return .compositeData(Data(value.utf8), urlParameters: query) }
            guard query.isEmpty else { throw UsageError(message: "--data @file takes the query in the URL, not -q") }
            let path = String(value.dropFirst())
            if let standardInput, path == "-" || path == "/dev/stdin" { return .uploadFile(standardInput) }
            return .uploadFile(URL(fileURLWithPath: path))
        case "multipart":
            var form = MultipartFormData()
            for field in arguments.all("multipart") {
                let (name, value) = try KeyValueArgument.split(field, option: "--multipart")
                if value.hasPrefix("@") {
                    form.append(fileAt: URL(fileURLWithPath: String(value.dropFirst())), name: name)
                } else {
                    form.append(value, name: name)
                }
            }
            return .uploadCompositeMultipart(form, urlParameters: query)
        default:
            return query.isEmpty ? .plain : .parameters(query, encoding: URLEncoding.queryString)
        }
    }

    /// Whether `-o` names standard output: `-`, as curl reads it, or `/dev/stdout`, which may be a pipe that a
    /// download destination refuses.
    static func writesToStandardOutput(_ output: String) -> Bool {
        output == "-" || output == "/dev/stdout"
    }

    /// Seconds written in decimal, as curl takes them (`2`, `0.5`): not hexadecimal, exponents, `inf` or `nan`,
    /// which `Double(_:)` would also read.
    static func seconds(_ arguments: ParsedArguments, _ option: String) throws(UsageError) -> TimeInterval? {
        guard let text = arguments.value(option) else { return nil }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let decimal =
            !text.isEmpty && parts.count <= 2 && !(parts.first?.isEmpty ?? true)
            && parts.allSatisfy { part in part.allSatisfy { $0.isASCII && $0.isNumber } }
            && (parts.count == 1 || !parts[1].isEmpty)
        guard decimal, let value = TimeInterval(text), value.isFinite, value > 0 else {
            throw UsageError(message: "--\(option) takes a decimal number of seconds greater than 0, not '\(text)'")
        }
        guard value <= RequestOptions.maximumTimeout else {
            throw UsageError(
                message:
                    "--\(option) takes at most \(Int(RequestOptions.maximumTimeout)) seconds (7 days), not '\(text)'")
        }
        return value
    }

    /// The client, and the stub server behind it, which must live as long as its session is used.
    static func makeClient(
        _ arguments: ParsedArguments, terminal: Terminal
    ) throws -> (Client<Target>, StubServer?) {
        var middleware: [any Middleware] = []
        if arguments.has("verbose") {
            var configuration = LogConfiguration(defaultLevel: .notice)
            configuration.subsystemLevels["dev.nal"] = .info
            let fromEnvironment = ProcessInfo.processInfo.environment["NAL_LOG"] != nil
            LoggingSystem.bootstrap(
                sinks: [VerboseLogSink(terminal: terminal)], configuration: fromEnvironment ? nil : configuration)
            middleware.append(LoggingMiddleware(options: [.headers, .timing]))
        }
        if let retries = arguments.value("retry") {
            guard let count = Int(retries), (0...maximumRetries).contains(count) else {
                throw UsageError(message: "--retry takes a whole number from 0 to \(maximumRetries), not '\(retries)'")
            }
            middleware.append(RetryMiddleware(maxAttempts: count + 1, baseDelay: .milliseconds(200)))
        }
        // Outermost, so that the log and a recording show it.
        middleware.insert(
            DefaultHeadersMiddleware(userAgent: userAgent, acceptLanguage: nil, acceptEncoding: nil), at: 0)
        guard arguments.value("stubs") == nil || arguments.value("transport") == nil else {
            throw UsageError(message: "--stubs answers through its own URLSession; it cannot be used with --transport")
        }
        var transport = try chosenTransport(arguments)
        var stubs: StubServer?
        if let directory = arguments.value("stubs") {
            let server = StubServer()
            stubs = server
            try FixtureTools.load(
                URL(fileURLWithPath: directory), into: server, placeholders: try Placeholders.parse(arguments))
            transport = URLSessionTransport(configuration: server.sessionConfiguration)
        }
        if let cassette = arguments.value("record") {
            transport = RecordingTransport(
                cassette: URL(fileURLWithPath: cassette), mode: .recordNew, wrapping: transport)
        }
        return (Client(middleware: middleware, transport: transport), stubs)
    }

    /// `nal-cli/0.4.0`, as curl sends `curl/8.5.0`; a `-H 'User-Agent: …'` replaces it.
    static let userAgent = "nal-cli/\(NALVersion.current)"

    /// The transport `--transport` names: `curl`, `urlsession`, or the platform's default when absent.
    static func chosenTransport(_ arguments: ParsedArguments) throws -> any Transport {
        switch arguments.value("transport") {
        case nil:
            return DefaultTransport.make()
        case "urlsession":
            return URLSessionTransport()
        case "curl":
            #if os(Linux)
                return try CurlTransport()
            #else
                throw UsageError(message: "--transport curl needs Linux, where NAL drives libcurl; use urlsession")
            #endif
        case let other?:
            throw UsageError(message: "--transport takes curl or urlsession, not '\(other)'")
        }
    }

    /// The most retries `--retry` takes.
    static let maximumRetries = 100
}
