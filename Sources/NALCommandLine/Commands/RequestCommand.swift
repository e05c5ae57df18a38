import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-cli request <method> <url>`: curl or httpie, through NAL.
package enum RequestCommand: Command {
    static let name = "request"
    static let abstract = "Send a request through NAL, as curl or httpie would."
    static let usage = "nal-cli request <method> <url> [<options>]"
    static let discussion = """
        Exits 0 on a 2xx status, 22 on an HTTP error status (as curl -f does), 28 on a timeout (as curl does), 1 on \
        any other failure, and 64 on a bad command line. A JSON body is pretty-printed on a terminal and passed \
        through unchanged when piped.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<method>", "The HTTP method: GET, POST, PUT, PATCH, DELETE, HEAD or any token."),
        ("<url>", "The absolute http or https URL."),
    ]
    package static let options: [OptionSpec] = [
        .value("header", short: "H", "k: v", "A request header. Repeatable."),
        .value("query", short: "q", "k=v", "A query parameter. Repeatable."),
        .value(
            "json", "k=v", "A field of a JSON body; k:=json for numbers, booleans,\narrays and objects. Repeatable."),
        .value("json-body", "file", "A JSON body read from a file."),
        .value("form", "k=v", "A field of a form body. Repeatable."),
        .value(
            "data", "@file|@-|text",
            "A raw body: a regular file's contents (streamed), standard\ninput (@-), or the text."),
        .value("multipart", "k=v|k=@file", "A multipart field, or a file part. Repeatable."),
        .value("bearer", "token", "Authorization: Bearer <token>."),
        .value("basic", "user:pass", "Authorization: Basic, from user:pass."),
        .value("retry", "n", "Retry a failed idempotent request up to n times (0 to 100)."),
        .value("timeout", "seconds", "The idle timeout: fail when nothing moves for this long."),
        .value("max-time", "seconds", "The total timeout for the whole call."),
        .value(
            "output", short: "o", "file",
            "Download the body to a file, with a progress bar on a\nterminal; '-' (or /dev/stdout) writes it to\nstandard output as it is."
        ),
        .flag("stream", short: "N", "Print the body as it arrives, chunk by chunk (as curl -N)."),
        .flag(
            "sse",
            "Print server-sent events as they arrive, one block per\nevent; fails unless the body is text/event-stream."
        ),
        .flag("include", short: "i", "Show the response status and headers."),
        .flag("verbose", short: "v", "Show NAL's logs (secrets redacted) on standard error."),
        .flag("curl", "Print the equivalent curl command and exit."),
        .flag("reveal", "With --curl, show secrets instead of <redacted>."),
        .value("stubs", "dir", "Answer from the .tail and .har fixtures in a directory\ninstead of the network."),
        .value("placeholder", "key=value", "With --stubs, a value for {{ key }} in .tail bodies.\nRepeatable."),
        .value("record", "file.har", "Record the exchange in a HAR cassette (a request already\nin it is replayed)."),
    ]

    /// An endpoint built from the command line.
    struct Target: RemoteService {
        var baseURL: URL
        var path: String { "" }
        var method: HTTPMethod
        var requestType: RequestType
        var headers: [String: String]?
        var timeout: TimeInterval?
        var totalTimeout: TimeInterval?
    }

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        guard arguments.positionals.count == 2 else {
            throw UsageError(
                message: arguments.positionals.count < 2
                    ? "missing \(arguments.positionals.isEmpty ? "<method> and <url>" : "<url>")"
                    : "unexpected argument '\(arguments.positionals[2])'")
        }
        let readsStandardInput = ["@-", "@/dev/stdin"].contains(arguments.value("data") ?? "")
        var standardInput: URL?
        if readsStandardInput {
            standardInput =
                arguments.has("curl") ? URL(fileURLWithPath: "/dev/stdin") : try await StandardInput.spool()
        }
        defer { StandardInput.removeSpooled() }
        let target = try makeTarget(arguments, standardInput: standardInput)
        if arguments.has("curl") {
            do throws(NALError) {
                terminal.out(try target.curlCommand(revealingSecrets: arguments.has("reveal")))
                return ExitCode.success
            } catch {
                throw UsageError(message: "\(error)")
            }
        }
        let client: Client<Target>
        let stubs: StubServer?
        do {
            (client, stubs) = try makeClient(arguments, terminal: terminal)
        } catch let error as UsageError {
            throw error
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
        if arguments.has("stream") || arguments.has("sse") {
            guard arguments.value("output") == nil else {
                throw UsageError(
                    message: "--stream and --sse print to standard output; they cannot be used with --output")
            }
            do throws(NALError) {
                try await printStream(client, target, arguments: arguments, terminal: terminal)
                withExtendedLifetime(stubs) {}
                return ExitCode.success
            } catch {
                return report(error, arguments: arguments, terminal: terminal)
            }
        }
        do throws(NALError) {
            let response: Response
            if let output = arguments.value("output"), !writesToStandardOutput(output), terminal.errorIsTTY {
                response = try await downloadWithProgress(client, target, terminal)
            } else {
                response = try await client.request(target)
            }
            show(response, arguments: arguments, terminal: terminal)
            withExtendedLifetime(stubs) {}
            return ExitCode.success
        } catch {
            return report(error, arguments: arguments, terminal: terminal)
        }
    }

    // MARK: Building

    /// The endpoint the command line describes; `standardInput` is the spooled copy of standard input for
    /// `--data @-`.
    static func makeTarget(_ arguments: ParsedArguments, standardInput: URL? = nil) throws(UsageError) -> Target {
        let method = HTTPMethod(rawValue: arguments.positionals[0])
        guard let url = URL(string: arguments.positionals[1]), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw UsageError(message: "'\(arguments.positionals[1])' is not an absolute http or https URL")
        }
        var headers: [String: String] = [:]
        for header in arguments.all("header") {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError(message: "the header '\(header)' is not 'Name: value'")
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
            requestType: try requestType(arguments, query: query, standardInput: standardInput),
            headers: headers.isEmpty ? nil : headers, timeout: try seconds(arguments, "timeout"),
            totalTimeout: try seconds(arguments, "max-time"))
    }

    private static func requestType(
        _ arguments: ParsedArguments, query: Parameters, standardInput: URL?
    ) throws(UsageError) -> RequestType {
        let bodies = ["json", "json-body", "form", "data", "multipart"].filter {
            !arguments.all($0).isEmpty
        }
        guard bodies.count <= 1 else {
            throw UsageError(message: "--\(bodies[0]) and --\(bodies[1]) cannot be combined: a request has one body")
        }
        if let output = arguments.value("output"), !writesToStandardOutput(output) {
            guard bodies.isEmpty else {
                throw UsageError(message: "--output downloads; it cannot be combined with a body")
            }
            return .downloadParameters(
                query, encoding: URLEncoding.queryString, destination: .file(URL(fileURLWithPath: output)))
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
    private static func seconds(_ arguments: ParsedArguments, _ option: String) throws(UsageError) -> TimeInterval? {
        guard let text = arguments.value(option) else { return nil }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let decimal =
            !text.isEmpty && parts.count <= 2 && !(parts.first?.isEmpty ?? true)
            && parts.allSatisfy { part in part.allSatisfy { $0.isASCII && $0.isNumber } }
            && (parts.count == 1 || !parts[1].isEmpty)
        guard decimal, let value = TimeInterval(text), value.isFinite, value > 0 else {
            throw UsageError(message: "--\(option) takes a decimal number of seconds greater than 0, not '\(text)'")
        }
        return value
    }

    /// The client, and the stub server behind it, which must live as long as its session is used.
    private static func makeClient(
        _ arguments: ParsedArguments, terminal: Terminal
    ) throws -> (Client<Target>, StubServer?) {
        var middleware: [any Middleware] = []
        if arguments.has("verbose") {
            var configuration = LogConfiguration(defaultLevel: .notice)
            configuration.subsystemLevels["dev.nal"] = .info
            let fromEnvironment = ProcessInfo.processInfo.environment["NAL_LOG"] != nil
            LoggingSystem.bootstrap(sinks: [StandardErrorSink()], configuration: fromEnvironment ? nil : configuration)
            middleware.append(LoggingMiddleware(options: [.headers, .timing]))
        }
        if let retries = arguments.value("retry") {
            guard let count = Int(retries), (0...maximumRetries).contains(count) else {
                throw UsageError(message: "--retry takes a whole number from 0 to \(maximumRetries), not '\(retries)'")
            }
            middleware.append(RetryMiddleware(maxAttempts: count + 1, baseDelay: .milliseconds(200)))
        }
        var transport: any Transport = URLSessionTransport()
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

    /// The most retries `--retry` takes.
    static let maximumRetries = 100

    // MARK: Output

    private static func downloadWithProgress(
        _ client: Client<Target>, _ target: Target, _ terminal: Terminal
    ) async throws(NALError) -> Response {
        do {
            for try await event in client.transfer(target) {
                switch event {
                case .progress(let progress):
                    FileHandle.standardError.write(
                        Data(
                            ("\r"
                                + ProgressBar.line(
                                    fraction: progress.fractionCompleted, bytes: progress.bytesReceived,
                                    total: progress.totalBytesToReceive)).utf8))
                case .completed(let response):
                    FileHandle.standardError.write(Data("\n".utf8))
                    return response
                }
            }
        } catch let error as NALError {
            FileHandle.standardError.write(Data("\n".utf8))
            throw error
        } catch {
            throw .cancelled
        }
        throw .cancelled
    }

    /// Prints a streamed body as it arrives: raw chunks, or (`--sse`) each event as a `text/event-stream` block.
    static func printStream(
        _ client: Client<Target>, _ target: Target, arguments: ParsedArguments, terminal: Terminal
    ) async throws(NALError) {
        let stream = try await client.stream(target)
        showHead(stream.response, arguments: arguments, terminal: terminal)
        if arguments.has("sse") {
            for try await event in stream.serverSentEvents { terminal.outRaw(Data(event.encoded.utf8)) }
        } else {
            for try await chunk in stream { terminal.outRaw(chunk) }
        }
    }

    /// The status line and headers, with `--include`.
    static func showHead(_ response: Response, arguments: ParsedArguments, terminal: Terminal) {
        guard arguments.has("include") else { return }
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.statusCode).capitalized
        terminal.out(terminal.bold("HTTP/1.1 \(response.statusCode) \(reason)"))
        for header in response.headers { terminal.out("\(terminal.bold(header.name)): \(header.value)") }
        terminal.out("")
    }

    static func show(_ response: Response, arguments: ParsedArguments, terminal: Terminal) {
        showHead(response, arguments: arguments, terminal: terminal)
        if let file = response.fileURL {
            terminal.err("saved \(file.path)")
            return
        }
        let type = response.headers["Content-Type"]?.lowercased() ?? ""
        // `-o -` asks for the bytes as they are.
        let raw = arguments.value("output").map(writesToStandardOutput) ?? false
        if !raw, terminal.outputIsTTY, type.contains("json"),
            let object = try? JSONSerialization.jsonObject(with: response.data, options: .fragmentsAllowed),
            let pretty = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        {
            terminal.outRaw(pretty + Data("\n".utf8))
        } else {
            terminal.outRaw(response.data)
        }
    }

    /// Shows what went wrong and returns curl's exit code for it.
    private static func report(_ error: NALError, arguments: ParsedArguments, terminal: Terminal) -> Int32 {
        switch error {
        case .unacceptableStatusCode(let response):
            show(response, arguments: arguments, terminal: terminal)
            terminal.err("Error: \(error)")
            return ExitCode.httpError
        case .timedOut:
            terminal.err("Error: \(error)")
            return ExitCode.timeout
        case .invalidRequest:
            terminal.err("Error: \(error)\nUsage: \(usage)\n  See 'nal-cli request --help' for more information.")
            return ExitCode.usage
        default:
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }
}
