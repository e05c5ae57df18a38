import Foundation
import NALStubbing

/// `nal-cli stubs lint <dir>`: every problem of a fixture directory, as `file:line: message`.
enum StubsLintCommand: Command {
    static let name = "lint"
    static let abstract = "Check every .tail and .har file; print each problem as file:line: message."
    static let usage = "nal-cli stubs lint <dir> [--placeholder <key=value>]..."
    static let discussion = "Exits 0 when no file has a problem, 1 when any has one or the directory cannot be read."
    static let arguments: [(name: String, help: String)] = [
        ("<dir>", "A directory of fixtures, searched recursively.")
    ]
    static let options: [OptionSpec] = [
        .value("placeholder", "key=value", "A value for {{ key }} in .tail bodies. Repeatable.")
    ]

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        guard arguments.positionals.count == 1 else { throw UsageError(message: "lint takes one directory") }
        return lint(
            URL(fileURLWithPath: arguments.positionals[0]), placeholders: try Placeholders.parse(arguments), terminal)
    }

    static func lint(_ directory: URL, placeholders: [String: String], _ terminal: Terminal) -> Int32 {
        do throws(FixtureError) {
            let (files, problems) = try FixtureTools.lint(directory, placeholders: placeholders)
            for problem in problems { terminal.out(problem.description) }
            terminal.out(
                "\(files) \(files == 1 ? "file" : "files") checked, \(problems.count) \(problems.count == 1 ? "problem" : "problems")"
            )
            return problems.isEmpty ? ExitCode.success : ExitCode.failure
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }
}
