import Foundation

/// The arguments of `nal-bench memory` and `nal-bench soak`: a URL, then `--flag N` pairs whose values are whole
/// numbers greater than 0, each flag known to the subcommand. One parser, so that both refuse the same mistakes.
struct SubcommandArguments {
    let url: URL
    /// The value of each flag given, by flag.
    let numbers: [String: Int]

    /// Reads `arguments`; `missingURL` is the message for a first argument that is not an http(s) URL with a host.
    init(
        _ arguments: [String], subcommand: String, flags: Set<String>, missingURL: String
    ) throws(BenchOptions.UsageError) {
        var remaining = arguments[...]
        guard let text = remaining.popFirst(), let url = URL(string: text), url.host != nil else {
            throw BenchOptions.UsageError(message: missingURL)
        }
        var numbers: [String: Int] = [:]
        while let flag = remaining.popFirst() {
            guard flags.contains(flag) else {
                throw BenchOptions.UsageError(message: "unknown option '\(flag)' for \(subcommand)")
            }
            guard let value = remaining.popFirst(), let number = Int(value), number > 0 else {
                throw BenchOptions.UsageError(message: "'\(flag)' needs a whole number greater than 0")
            }
            numbers[flag] = number
        }
        self.url = url
        self.numbers = numbers
    }
}
