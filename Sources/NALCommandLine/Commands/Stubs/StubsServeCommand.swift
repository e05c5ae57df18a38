import Foundation
import NALStubbing

/// `nal-cli stubs serve <path>...`: fixtures over HTTP, for any client.
enum StubsServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve .tail directories or files and .har files over HTTP until stopped."
    static let usage = "nal-cli stubs serve <path>... [<options>]"
    static let discussion = """
        Runs until stopped (Ctrl-C, SIGTERM). The first line on standard output is the URL served. \
        GET /__nal/requests is the journal as JSON, DELETE /__nal/requests empties it; POST /__nal/stubs adds the \
        .tail file in its body, GET /__nal/stubs lists the stubs, DELETE /__nal/stubs removes those added; \
        POST /__nal/reset does both deletes; GET /__nal/health answers 200. A test tool: it listens on 127.0.0.1 \
        unless --host says otherwise, without authentication.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<path>", "A .tail directory or file, or a .har file. Repeatable.")
    ]
    static let options: [OptionSpec] = [
        .value("placeholder", "key=value", "A value for {{ key }} in .tail bodies. Repeatable."),
        .value("host", "address", "The address to listen on (default 127.0.0.1)."),
        .value("port", "number", "The port, 0 for a free one (default 8080)."),
        .value("as", "origin", "Match requests as sent to this origin, as https://api.github.com."),
    ]

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        guard !arguments.positionals.isEmpty else {
            throw UsageError(message: "serve takes one or more .tail directories or files, or .har files")
        }
        let paths = arguments.positionals.map { URL(fileURLWithPath: $0) }
        return await serve(paths, try ServeSettings(arguments), try Placeholders.parse(arguments), terminal)
    }

    static func serve(
        _ paths: [URL], _ settings: ServeSettings, _ placeholders: [String: String], _ terminal: Terminal
    ) async -> Int32 {
        let server = StubServer()
        var stubs = 0
        do throws(FixtureError) {
            for path in paths { stubs += try FixtureTools.load(path: path, into: server, placeholders: placeholders) }
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
        var options = ListenerOptions()
        options.adminEndpoints = true
        let listener: StubListener
        do {
            listener = try server.listen(
                host: settings.host, port: settings.port, as: settings.origin, options: options)
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
        Interruption.stopsBySignal.store(true, ordering: .releasing)
        terminal.out(listener.baseURL.absoluteString)
        terminal.err(
            "Serving \(stubs) \(stubs == 1 ? "stub" : "stubs") from \(paths.count) \(paths.count == 1 ? "path" : "paths")"
                + (settings.origin.map { " as \($0.absoluteString)" } ?? "")
                + "; the journal is at /__nal/requests. Ctrl-C stops.")
        // Until the signal cancels this task.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        await listener.stop()
        terminal.err("Stopped.")
        return ExitCode.success
    }
}
