import Foundation
import NALCore

/// Exit codes follow swift-argument-parser and sysexits: 0 success, 1 failure, 64 usage error.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

struct StandardOutput: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardOutput.write(Data(string.utf8))
    }
}

enum CLI {
    static let usage = "USAGE: nal-cli <subcommand>"

    static let help = """
        OVERVIEW: NAL, a network abstraction layer for Swift: describe an API as an enum of endpoints, call it with \
        async/await, and test it against stubs.

        \(usage)

        SUBCOMMANDS:
          demo                    Prepare the requests of a sample API and print them with their cURL form.
          help                    Show this help.

        OPTIONS:
          -h, --help              Show this help.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        var standardOutput = StandardOutput()
        var standardError = StandardError()
        switch arguments.first {
        case nil, "help", "-h", "--help":
            print(help, to: &standardOutput)
            return .success
        case "demo" where arguments.count == 1:
            do {
                try DemoCommand.run(output: &standardOutput)
                return .success
            } catch {
                print("Error: \(error)", to: &standardError)
                return .failure
            }
        case "demo":
            return usageError("unexpected argument '\(arguments[1])' for 'demo'", to: &standardError)
        case let unknown?:
            return usageError("unknown subcommand '\(unknown)'", to: &standardError)
        }
    }

    private static func usageError(_ message: String, to standardError: inout StandardError) -> ExitCode {
        print("Error: \(message)\n\(usage)\n  See 'nal-cli --help' for more information.", to: &standardError)
        return .usage
    }
}

exit(CLI.run(Array(CommandLine.arguments.dropFirst())).rawValue)
