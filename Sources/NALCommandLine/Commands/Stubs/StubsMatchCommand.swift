import Foundation
import NALStubbing

/// `nal-cli stubs match <dir> <method> <url>`: which stub answers a request, and why the others do not.
enum StubsMatchCommand: Command {
    static let name = "match"
    static let abstract = "Show which stub answers a request, and why each other stub does not."
    static let usage = "nal-cli stubs match <dir> <method> <url> [--placeholder <key=value>]..."
    static let discussion = "Exits 0 when a stub answers, 1 when none does."
    static let arguments: [(name: String, help: String)] = [
        ("<dir>", "A directory of fixtures, searched recursively."),
        ("<method>", "The request's method, such as GET."),
        ("<url>", "The request's absolute URL."),
    ]
    static let options: [OptionSpec] = [
        .value("placeholder", "key=value", "A value for {{ key }} in .tail bodies. Repeatable.")
    ]

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        let positionals = arguments.positionals
        guard positionals.count == 3, let url = URL(string: positionals[2]), url.scheme != nil else {
            throw UsageError(message: "match takes a directory, a method and an absolute URL")
        }
        return match(
            URL(fileURLWithPath: positionals[0]), positionals[1], url, try Placeholders.parse(arguments), terminal)
    }

    static func match(
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
}
