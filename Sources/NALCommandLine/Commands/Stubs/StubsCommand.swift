import Foundation
import NALCore
import NALStubbing

/// `nal-cli stubs lint|match|import-har|serve`: tools for fixture directories of `.tail` and `.har` files.
enum StubsCommand: Command {
    static let name = "stubs"
    static let abstract = "Check, query, convert and serve fixture directories of .tail and .har files."
    static let usage =
        "nal-cli stubs lint <dir> | match <dir> <method> <url> | import-har <file.har> <dir> | serve <path>..."
    static let discussion = """
        lint        Check every .tail and .har file; print each problem as file:line: message. Exits 1 if any.
        match       Show which stub answers a request, and why each other stub does not.
        import-har  Write each entry of a HAR file as a .tail file.
        serve       Serve .tail directories or files and .har files over HTTP until stopped (Ctrl-C, SIGTERM).
                    The first line on standard output is the URL served. GET /__nal/requests is the journal as
                    JSON, DELETE /__nal/requests empties it; POST /__nal/stubs adds the .tail file in its body,
                    GET /__nal/stubs lists the stubs, DELETE /__nal/stubs removes those added; POST /__nal/reset
                    does both deletes; GET /__nal/health answers 200. A test tool: it listens on 127.0.0.1 unless
                    --host says otherwise, without authentication.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<action>", "lint, match, import-har or serve."),
        ("<dir>", "A directory of fixtures, searched recursively."),
        ("<path>", "For serve: a .tail directory or file, or a .har file. Repeatable."),
    ]
    static let options: [OptionSpec] = [
        .value("placeholder", "key=value", "A value for {{ key }} in .tail bodies. Repeatable."),
        .value("host", "address", "serve: the address to listen on (default 127.0.0.1)."),
        .value("port", "number", "serve: the port, 0 for a free one (default 8080)."),
        .value("as", "origin", "serve: match requests as sent to this origin, as https://api.github.com."),
    ]

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        let placeholders = try Placeholders.parse(arguments)
        let positionals = arguments.positionals
        switch positionals.first {
        case "lint":
            guard positionals.count == 2 else { throw UsageError(message: "lint takes one directory") }
            return lint(URL(fileURLWithPath: positionals[1]), placeholders: placeholders, terminal)
        case "match":
            guard positionals.count == 4, let url = URL(string: positionals[3]), url.scheme != nil else {
                throw UsageError(message: "match takes a directory, a method and an absolute URL")
            }
            return match(URL(fileURLWithPath: positionals[1]), positionals[2], url, placeholders, terminal)
        case "import-har":
            guard positionals.count == 3 else {
                throw UsageError(message: "import-har takes a HAR file and a directory")
            }
            return importHAR(URL(fileURLWithPath: positionals[1]), URL(fileURLWithPath: positionals[2]), terminal)
        case "serve":
            guard positionals.count >= 2 else {
                throw UsageError(message: "serve takes one or more .tail directories or files, or .har files")
            }
            let paths = positionals.dropFirst().map { URL(fileURLWithPath: $0) }
            return await serve(paths, try ServeSettings(arguments), placeholders, terminal)
        case let action?:
            throw UsageError(message: "unknown action '\(action)'; use lint, match, import-har or serve")
        case nil:
            throw UsageError(message: "missing action: lint, match, import-har or serve")
        }
    }

    private static func lint(_ directory: URL, placeholders: [String: String], _ terminal: Terminal) -> Int32 {
        do throws(FixtureError) {
            let (files, problems) = try FixtureTools.lint(directory, placeholders: placeholders)
            for problem in problems { terminal.out(problem.description) }
            terminal.out("\(files) files checked, \(problems.count) \(problems.count == 1 ? "problem" : "problems")")
            return problems.isEmpty ? ExitCode.success : ExitCode.failure
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }

    private static func match(
        _ directory: URL, _ method: String, _ url: URL, _ placeholders: [String: String], _ terminal: Terminal
    ) -> Int32 {
        let server = StubServer()
        do throws(FixtureError) {
            try FixtureTools.load(directory, into: server, placeholders: placeholders)
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
        let request = RecordedRequest(method: method, url: url)
        let (answer, others) = server.matchReport(for: request)
        terminal.out(answer.map { "\(terminal.green("answers")) \($0)" } ?? terminal.red("no stub answers \(request)"))
        for other in others { terminal.out("  not \(other)") }
        return answer == nil ? ExitCode.failure : ExitCode.success
    }

    private static func serve(
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
            "Serving \(stubs) stubs from \(paths.count) \(paths.count == 1 ? "path" : "paths")"
                + (settings.origin.map { " as \($0.absoluteString)" } ?? "")
                + "; the journal is at /__nal/requests. Ctrl-C stops.")
        // Until the signal cancels this task.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        await listener.stop()
        terminal.err("Stopped.")
        return ExitCode.success
    }

    private static func importHAR(_ har: URL, _ directory: URL, _ terminal: Terminal) -> Int32 {
        do throws(FixtureError) {
            let (written, skipped) = try FixtureTools.importHAR(har, to: directory)
            for file in written { terminal.out("wrote \(file.path)") }
            for entry in skipped { terminal.out("skipped \(entry)") }
            terminal.out(
                "\(written.count) .tail files from \(har.lastPathComponent)"
                    + (skipped.isEmpty ? "" : ", \(skipped.count) failed entries skipped"))
            return ExitCode.success
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }
}

/// `--placeholder key=value` options, as `.tail` placeholders.
enum Placeholders {
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> [String: String] {
        var placeholders: [String: String] = [:]
        for pair in arguments.all("placeholder") {
            let (key, value) = try KeyValueArgument.split(pair, option: "--placeholder")
            placeholders[key] = value
        }
        return placeholders
    }
}

/// The listening options of `stubs serve`.
struct ServeSettings {
    var host = "127.0.0.1"
    var port = 8080
    var origin: URL?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let host = arguments.value("host") { self.host = host }
        if let text = arguments.value("port") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw UsageError(message: "--port takes a number from 0 to 65535, not '\(text)'")
            }
            self.port = port
        }
        if let text = arguments.value("as") {
            // What makes an origin is the listener's to check (StubListenerError.invalidOrigin), once.
            guard let url = URL(string: text) else {
                throw UsageError(message: "--as takes an origin such as https://api.github.com, not '\(text)'")
            }
            origin = url
        }
    }
}
