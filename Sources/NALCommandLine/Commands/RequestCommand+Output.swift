import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the command prints: bodies, heads, progress, errors.
extension RequestCommand {
    static func downloadWithProgress(
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
        terminal.out(terminal.bold(statusLine(of: response)))
        for header in response.headers {
            terminal.out("\(terminal.bold(TerminalText.visible(header.name))): \(TerminalText.visible(header.value))")
        }
        terminal.out("")
    }

    /// `HTTP/1.1 200 OK` as the server sent it: its version and reason phrase when the transport read them
    /// (CurlTransport), else `HTTP 200`, with no phrase made up.
    static func statusLine(of response: Response) -> String {
        let reason = response.reasonPhrase.map { $0.isEmpty ? "" : " " + $0 } ?? ""
        return "\(response.httpVersion ?? "HTTP") \(response.statusCode)\(reason)"
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

    /// A timeout in the CLI's words: the option that sets the limit, not the library's field.
    static func timeoutMessage(_ failure: TimeoutFailure) -> String {
        let value = failure.seconds
        let seconds = (value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)) + " s"
        let url = shown(failure.url)
        return switch failure.limit {
        case .idle:
            "The request to \(url) timed out: nothing was sent or received for \(seconds). Raise --timeout, or check "
                + "the server."
        case .total:
            "The request to \(url) timed out: it did not complete within \(seconds). Raise --max-time, or check the "
                + "server."
        }
    }

    /// A URL as a message shows it: secrets redacted, as every URL NAL prints.
    static func shown(_ url: URL?) -> String {
        url.map { SensitiveData.current.redacting(url: $0.absoluteString) } ?? "an unknown URL"
    }

    /// Shows what went wrong and returns curl's exit code for it.
    static func report(_ error: NALError, arguments: ParsedArguments, terminal: Terminal) -> Int32 {
        switch error {
        case .unacceptableStatusCode(let response):
            show(response, arguments: arguments, terminal: terminal)
            terminal.err("Error: \(error)")
            return ExitCode.httpError
        case .timedOut(let failure):
            terminal.err("Error: \(timeoutMessage(failure))")
            return ExitCode.timeout
        case .responseTooLarge(let limit, let url):
            terminal.err(
                "Error: The response from \(shown(url)) is larger than \(limit) bytes, the most kept in "
                    + "memory; save it to a file with -o or -O, or print it as it arrives with --stream.")
            return ExitCode.failure
        case .invalidRequest:
            terminal.err("Error: \(error)\nUsage: \(usage)\n  See 'nal-cli request --help' for more information.")
            return ExitCode.usage
        default:
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }
}
