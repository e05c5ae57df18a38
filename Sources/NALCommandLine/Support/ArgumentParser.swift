/// A usage error: the command line asked for something the command does not take. Exit 64.
package struct UsageError: Error {
    package let message: String
}

/// One option a command takes.
package struct OptionSpec {
    let long: String
    var short: Character?
    /// Whether the option takes a value (`--timeout 5`), or is a flag (`-i`).
    var takesValue: Bool
    var valueName = "value"
    let help: String

    static func value(_ long: String, short: Character? = nil, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: true, valueName: valueName, help: help)
    }

    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, takesValue: false, help: help)
    }

    /// `-H, --header <k: v>`, as help lists it.
    var synopsis: String {
        let names = (short.map { "-\($0), " } ?? "") + "--\(long)"
        return takesValue ? "\(names) <\(valueName)>" : names
    }
}

/// What a command line holds, once parsed by a command's options.
package struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    package private(set) var positionals: [String] = []

    /// Every value of a repeatable option, in order.
    func all(_ long: String) -> [String] { values[long] ?? [] }
    /// The last value of an option.
    func value(_ long: String) -> String? { values[long]?.last }
    func has(_ long: String) -> Bool { flags.contains(long) }

    /// Parses `arguments` following swift-argument-parser's conventions: `--name value` and `--name=value`,
    /// `-x value`, flags, `--` ends the options, `-h`/`--help` anywhere asks for help.
    package static func parse(_ arguments: [String], options: [OptionSpec]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        // Help wins over everything else on the line, as in swift-argument-parser.
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            parsed.flags.insert("help")
            return parsed
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                parsed.positionals += remaining
                break
            }
            if argument == "-h" || argument == "--help" {
                parsed.flags.insert("help")
                continue
            }
            let spec: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = body.prefix { $0 != "=" }
                if body.count > name.count { inlineValue = String(body.dropFirst(name.count + 1)) }
                guard let found = options.first(where: { $0.long == name }) else {
                    throw UsageError(message: "unknown option '--\(name)'")
                }
                spec = found
            } else if argument.hasPrefix("-"), argument.count >= 2, !argument.dropFirst().allSatisfy(\.isNumber) {
                let letter = argument.dropFirst().first ?? "-"
                guard let found = options.first(where: { $0.short == letter }) else {
                    throw UsageError(message: "unknown option '-\(letter)'")
                }
                if argument.count > 2 { inlineValue = String(argument.dropFirst(2)) }
                spec = found
            } else {
                parsed.positionals.append(argument)
                continue
            }
            guard spec.takesValue else {
                if inlineValue != nil { throw UsageError(message: "the flag '--\(spec.long)' takes no value") }
                parsed.flags.insert(spec.long)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw UsageError(message: "missing value for '\(spec.synopsis)'")
            }
            parsed.values[spec.long, default: []].append(value)
        }
        return parsed
    }
}
