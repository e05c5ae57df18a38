import Foundation
import NALCore
import NALStubbing

/// `nal-cli stubs lint|match|import-har|serve`: tools for fixture directories of `.tail` and `.har` files.
enum StubsCommand: Command {
    static let name = "stubs"
    static let abstract = "Check, query, convert and serve fixture directories of .tail and .har files."
    static let usage = "nal-cli stubs <subcommand>"
    static let options: [OptionSpec] = []
    static var subcommands: [any Command.Type] {
        [StubsLintCommand.self, StubsMatchCommand.self, StubsImportHARCommand.self, StubsServeCommand.self]
    }

    /// Never called: `CLI` runs one of `subcommands`.
    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        throw UsageError(message: "missing subcommand: lint, match, import-har or serve")
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
