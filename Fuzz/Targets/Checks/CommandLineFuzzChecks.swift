package import Foundation
import NALCommandLine
import NALCore
import NALSupport

/// Properties of the command line's parsing over arbitrary input, for the fuzz targets in `Fuzz/`.
package enum CommandLineFuzzChecks {
    /// Arguments (NUL-separated in the input) parse or fail with a usage error; every `key=value` item splits at its
    /// first `=` and joins back to itself.
    package static func arguments(_ data: Data) throws(FuzzFailure) {
        let arguments = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if let parsed = try? ParsedArguments.parse(arguments, options: RequestCommand.options) {
            try FuzzFailure.check(parsed.positionals.count <= arguments.count, "more positionals than arguments")
        }
        for argument in arguments {
            if let (key, value) = try? KeyValueArgument.split(argument, option: "--fuzz") {
                try FuzzFailure.check(key + "=" + value == argument && !key.isEmpty, "\(argument) split wrongly")
            }
            _ = try? KeyValueArgument.parse(argument, option: "--fuzz")
        }
    }
}
