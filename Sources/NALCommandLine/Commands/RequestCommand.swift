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
            "Download the body to a file, with a progress bar on a\nterminal; '-' (or /dev/stdout) writes it to\nstandard output as it is; a directory (dir/) saves\nunder the URL's file name."
        ),
        .flag(
            "remote-name", short: "O",
            "Download to a file named as the URL's last path\nsegment, in the current directory or --output-dir."),
        .value("output-dir", "dir", "The directory -o and -O save in."),
        .value(
            "transport", "curl|urlsession",
            "What sends the request: curl (libcurl, the default on\nLinux) or urlsession (FoundationNetworking)."),
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
            guard arguments.value("output").map(writesToStandardOutput) ?? true, !arguments.has("remote-name") else {
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
            if case .downloadParameters = target.requestType, terminal.errorIsTTY {
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
}
