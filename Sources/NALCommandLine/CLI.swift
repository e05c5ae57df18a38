import Foundation
import NALCore

/// `nal-cli`: the commands, their help, and the exit codes of swift-argument-parser (help on stdout with 0; a usage
/// error on stderr with 64).
package enum CLI {
    static var commands: [any Command.Type] {
        [DemoCommand.self, RequestCommand.self, EncodeCommand.self, StubsCommand.self]
    }

    static let usage = "nal-cli <subcommand>"

    static let overview = """
        OVERVIEW: NAL, a network abstraction layer for Swift: describe an API as an enum of endpoints, call it with \
        async/await, and test it against stubs.
        """

    static var help: String {
        """
        \(HelpText.wrapped(overview))

        USAGE: \(usage)

        OPTIONS:
        \(HelpText.row("--version", "Show the version."))
        \(HelpText.row("-h, --help", "Show help information."))

        SUBCOMMANDS:
        \(commands.map { HelpText.row($0.name, $0.abstract) }.joined(separator: "\n"))
        \(HelpText.row("help", "Show help for a subcommand."))

          See 'nal-cli help <subcommand>' for detailed help.
        """
    }

    /// `main(_:terminal:)` for the `nal-cli` process: SIGINT and SIGTERM cancel the command and clean up before it
    /// exits (see `Interruption`). Tests call `main` itself, which leaves the signals alone.
    package static func runAsProcess(_ arguments: [String], terminal: Terminal) async -> Int32 {
        await Interruption.run { await main(arguments, terminal: terminal) }
    }

    package static func main(_ arguments: [String], terminal: Terminal) async -> Int32 {
        guard let first = arguments.first else {
            terminal.out(help)
            return ExitCode.success
        }
        switch first {
        case "-h", "--help":
            terminal.out(help)
            return ExitCode.success
        case "--version":
            terminal.out(NALVersion.current)
            return ExitCode.success
        case "help":
            guard let name = arguments.dropFirst().first else {
                terminal.out(help)
                return ExitCode.success
            }
            guard let command = commands.first(where: { $0.name == name }) else {
                return usageError("unknown subcommand '\(name)'", usage: usage, helpCommand: "nal-cli --help", terminal)
            }
            guard let subname = arguments.dropFirst(2).first else {
                terminal.out(command.help)
                return ExitCode.success
            }
            guard let subcommand = command.subcommands.first(where: { $0.name == subname }) else {
                return usageError(
                    "unknown subcommand '\(subname)' of \(name)", usage: command.usage,
                    helpCommand: "nal-cli \(name) --help", terminal)
            }
            terminal.out(subcommand.help)
            return ExitCode.success
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            return usageError(
                first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown subcommand '\(first)'", usage: usage,
                helpCommand: "nal-cli --help", terminal)
        }
        if !command.subcommands.isEmpty {
            return await runGroup(command, Array(arguments.dropFirst()), terminal: terminal)
        }
        return await run(command, Array(arguments.dropFirst()), path: command.name, terminal: terminal)
    }

    /// Parses `arguments` for `command` and runs it, or prints its help; `path` names it (`stubs lint`).
    static func run(
        _ command: any Command.Type, _ arguments: [String], path: String, terminal: Terminal
    ) async -> Int32 {
        do throws(UsageError) {
            let parsed = try ParsedArguments.parse(arguments, options: command.options)
            if parsed.has("help") {
                terminal.out(command.help)
                return ExitCode.success
            }
            return try await command.run(parsed, terminal: terminal)
        } catch {
            return usageError(error.message, usage: command.usage, helpCommand: "nal-cli \(path) --help", terminal)
        }
    }

    /// Runs the subcommand of `group` that `arguments` names first; the group's help when it names none but asks
    /// for help.
    static func runGroup(_ group: any Command.Type, _ arguments: [String], terminal: Terminal) async -> Int32 {
        let names = group.subcommands.map { $0.name }
        let list = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        guard let first = arguments.first, !first.hasPrefix("-") else {
            if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
                terminal.out(group.help)
                return ExitCode.success
            }
            let message = arguments.first.map { "unknown option '\($0)'" } ?? "missing subcommand: \(list)"
            return usageError(message, usage: group.usage, helpCommand: "nal-cli \(group.name) --help", terminal)
        }
        guard let subcommand = group.subcommands.first(where: { $0.name == first }) else {
            return usageError(
                "unknown subcommand '\(first)'; use \(list)", usage: group.usage,
                helpCommand: "nal-cli \(group.name) --help", terminal)
        }
        return await run(
            subcommand, Array(arguments.dropFirst()), path: "\(group.name) \(subcommand.name)", terminal: terminal)
    }

    /// `Error: …`, the usage line and where to find help, on standard error; exit 64.
    static func usageError(_ message: String, usage: String, helpCommand: String, _ terminal: Terminal) -> Int32 {
        terminal.err("Error: \(message)\nUsage: \(usage)\n  See '\(helpCommand)' for more information.")
        return ExitCode.usage
    }
}
