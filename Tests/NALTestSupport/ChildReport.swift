/// What a test's child process printed for the parent to judge: a `name value` line for each figure, and an
/// `error <what>` line for each thing that went wrong. The child exits 0 after printing, so that the parent can show
/// both, where a failed exit test would show neither.
package struct ChildReport: Sendable {
    /// The figures, by name.
    package let figures: [String: Int]
    /// What went wrong, as the child said it.
    package let errors: [String]
    /// Everything the child printed, for a failure's message.
    package let text: String

    package init(_ output: [UInt8]?) {
        text = output.map { String(decoding: $0, as: UTF8.self) } ?? "(nothing: the child did not exit 0)"
        var figures: [String: Int] = [:]
        var errors: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("error ") {
                errors.append(String(line.dropFirst("error ".count)))
                continue
            }
            let words = line.split(separator: " ")
            if words.count == 2, let value = Int(words[1]) { figures[String(words[0])] = value }
        }
        self.figures = figures
        self.errors = errors
    }

    /// The figure `name`, or `nil` when the child did not print it.
    package subscript(_ name: String) -> Int? { figures[name] }
}
