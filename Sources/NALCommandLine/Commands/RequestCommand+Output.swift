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
    static func report(_ error: NALError, arguments: ParsedArguments, terminal: Terminal) -> Int32 {
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
