import Foundation
import NALCore
import NALStubbing

/// `nal-cli stubs lint|match|import-har`: tools for fixture directories of `.tail` and `.har` files.
enum StubsCommand: Command {
    static let name = "stubs"
    static let abstract = "Check, query and convert fixture directories of .tail and .har files."
    static let usage = "nal-cli stubs lint <dir> | match <dir> <method> <url> | import-har <file.har> <dir>"
    static let discussion = """
        lint        Check every .tail and .har file; print each problem as file:line: message. Exits 1 if any.
        match       Show which stub answers a request, and why each other stub does not.
        import-har  Write each entry of a HAR file as a .tail file.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<action>", "lint, match or import-har."),
        ("<dir>", "A directory of fixtures, searched recursively."),
    ]
    static let options: [OptionSpec] = [
        .value("placeholder", "key=value", "A value for {{ key }} in .tail bodies. Repeatable.")
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
        case let action?:
            throw UsageError(message: "unknown action '\(action)'; use lint, match or import-har")
        case nil:
            throw UsageError(message: "missing action: lint, match or import-har")
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
