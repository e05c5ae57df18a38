import Foundation
package import NALCore

/// A `nal-cli` subcommand: its help, its options, and what it does.
protocol Command {
    static var name: String { get }
    /// One line for the overview.
    static var abstract: String { get }
    /// `nal-cli request <method> <url> [<options>]`.
    static var usage: String { get }
    /// More about the command, under the overview; may be empty.
    static var discussion: String { get }
    /// Positional arguments and what they are.
    static var arguments: [(name: String, help: String)] { get }
    static var options: [OptionSpec] { get }
    /// The commands under this one (`stubs lint`); a command with some only groups them, and never runs itself.
    static var subcommands: [any Command.Type] { get }
    /// Runs with parsed arguments and returns the exit code; throws `UsageError` for a bad command line.
    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32
}

extension Command {
    static var discussion: String { "" }
    static var arguments: [(name: String, help: String)] { [] }
    static var subcommands: [any Command.Type] { [] }

    /// The help text, laid out as swift-argument-parser lays it out.
    static var help: String {
        var sections = [HelpText.wrapped("OVERVIEW: \(abstract)")]
        if !discussion.isEmpty { sections.append(HelpText.wrapped(discussion)) }
        sections.append("USAGE: \(usage)")
        if !arguments.isEmpty {
            sections.append("ARGUMENTS:\n" + arguments.map { HelpText.row($0.name, $0.help) }.joined(separator: "\n"))
        }
        let rows =
            options.map { HelpText.row($0.synopsis, $0.help) } + [HelpText.row("-h, --help", "Show help information.")]
        sections.append("OPTIONS:\n" + rows.joined(separator: "\n"))
        if !subcommands.isEmpty {
            sections.append(
                "SUBCOMMANDS:\n" + subcommands.map { HelpText.row($0.name, $0.abstract) }.joined(separator: "\n")
                    + "\n\n  See 'nal-cli help \(name) <subcommand>' for detailed help.")
        }
        return sections.joined(separator: "\n\n")
    }
}

enum HelpText {
    static let column = 30
    /// The width discussions are wrapped to, as swift-argument-parser wraps them.
    static let width = 80

    /// `text` with each of its lines wrapped at spaces to at most `width` columns; a word longer than that stays whole.
    static func wrapped(_ text: String, width: Int = width) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var lines: [String] = []
            var current = ""
            for word in line.split(separator: " ") {
                if !current.isEmpty, current.count + 1 + word.count > width {
                    lines.append(current)
                    current = ""
                }
                current += (current.isEmpty ? "" : " ") + word
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `  name                      help`, the help wrapped under its column to `width`.
    static func row(_ name: String, _ help: String) -> String {
        let lead = "  " + name
        let padding =
            lead.count < column
            ? String(repeating: " ", count: column - lead.count) : "\n" + String(repeating: " ", count: column)
        let lines = wrapped(help.replacingOccurrences(of: "\n", with: " "), width: width - column)
        return lead + padding + lines.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: column))
    }
}

/// Exit codes: swift-argument-parser's and sysexits' for the CLI itself, curl's for `request`.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    /// An HTTP error status, as `curl -f` exits.
    static let httpError: Int32 = 22
    /// A timeout, as curl exits.
    static let timeout: Int32 = 28
    static let usage: Int32 = 64
}

/// A `key=value` argument (`k:=json` for non-strings, as httpie has it) as a parameter.
package enum KeyValueArgument {
    /// `key=value` split at the first `=`; the key may not be empty.
    package static func split(_ argument: String, option: String) throws(UsageError) -> (key: String, value: String) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw UsageError(message: "'\(argument)' for \(option) is not key=value")
        }
        guard equals != argument.startIndex else {
            throw UsageError(message: "'\(argument)' for \(option) has an empty key")
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    package static func parse(
        _ argument: String, option: String
    ) throws(UsageError) -> (key: String, value: ParameterValue) {
        let (name, raw) = try split(argument, option: option)
        guard name.hasSuffix(":") else { return (name, .string(raw)) }
        var key = name
        key.removeLast()
        guard !key.isEmpty else { throw UsageError(message: "'\(argument)' for \(option) has an empty key") }
        do {
            return (key, try JSONDecoder().decode(ParameterValue.self, from: Data(raw.utf8)))
        } catch {
            throw UsageError(message: "the value of '\(key)' for \(option) (after ':=') \(Self.reason(error, raw))")
        }
    }

    /// The deepest nesting of arrays and objects in JSON text, strings skipped.
    static func nestingDepth(of text: String) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Why a `:=` value could not be read, in words: nesting too deep is not the same mistake as a typo.
    static func reason(_ error: any Error, _ text: String) -> String {
        let depth = nestingDepth(of: text)
        if depth > 500 {
            return "is nested \(depth) levels deep; JSON decoders accept at most 512"
        }
        let context: DecodingError.Context? =
            switch error as? DecodingError {
            case .dataCorrupted(let context)?: context
            case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?: context
            default: nil
            }
        let detail = [context?.debugDescription, (context?.underlyingError as? NSError)?.localizedDescription]
            .compactMap { $0 }.joined(separator: ": ")
        return "is not valid JSON" + (detail.isEmpty ? "" : " (\(detail))")
    }

    static func parameters(_ arguments: [String], option: String) throws(UsageError) -> Parameters {
        var parameters: Parameters = [:]
        for argument in arguments {
            let (key, value) = try parse(argument, option: option)
            parameters[key] = value
        }
        return parameters
    }
}
