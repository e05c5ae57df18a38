import Foundation
import NALCore

/// `nal-cli encode`: what a parameter set becomes under each encoding, to settle an argument with a server.
enum EncodeCommand: Command {
    static let name = "encode"
    static let abstract = "Show what parameters become under each encoding."
    static let usage = "nal-cli encode <key=value> ... [<options>]"
    static let discussion = """
        Parameters are key=value for text and key:=json for anything else (numbers, booleans, arrays, objects), as \
        httpie writes them. Keys are sorted at every level, as NAL sends them.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<key=value>", "A parameter: key=text or key:=json. Repeatable.")
    ]
    static let options: [OptionSpec] = []

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing parameters (key=value)") }
        let parameters = try KeyValueArgument.parameters(arguments.positionals, option: "encode")
        let rows: [(String, URLEncoding)] = [
            ("query, arrays key[]=, bools 1/0 (URLEncoding.default)", URLEncoding.queryString),
            ("query, arrays key=", URLEncoding(destination: .queryString, arrayEncoding: .noBrackets)),
            ("query, arrays key[0]=", URLEncoding(destination: .queryString, arrayEncoding: .indexInBrackets)),
            ("query, bools true/false", URLEncoding(destination: .queryString, boolEncoding: .literal)),
            ("form body (URLEncoding.httpBody)", URLEncoding.httpBody),
        ]
        do throws(NALError) {
            for (title, encoding) in rows {
                terminal.out(terminal.bold(title))
                terminal.out("  " + (try encoding.queryString(parameters)))
            }
            terminal.out(terminal.bold("JSON body (JSONEncoding.default)"))
            terminal.out("  " + String(decoding: try JSONEncoding.default.data(parameters), as: UTF8.self))
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
        return ExitCode.success
    }
}
