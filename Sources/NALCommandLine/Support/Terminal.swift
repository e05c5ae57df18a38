import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the CLI writes, and what the terminal on the other side can show.
package struct Terminal: Sendable {
    /// Whether standard output is a terminal (not a pipe or a file).
    let outputIsTTY: Bool
    /// Whether standard error is a terminal; progress bars go there.
    let errorIsTTY: Bool
    /// Colour only on a terminal, and never when `NO_COLOR` is set (no-color.org).
    let colour: Bool

    package static let current: Terminal = {
        let environment = ProcessInfo.processInfo.environment
        let noColour = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let output = isatty(1) == 1
        return Terminal(outputIsTTY: output, errorIsTTY: isatty(2) == 1, colour: output && !noColour)
    }()

    func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func outRaw(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `text` in bold, when colour is on.
    func bold(_ text: String) -> String { colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// `text` dimmed, when colour is on.
    func dim(_ text: String) -> String { colour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// `text` in green, when colour is on.
    func green(_ text: String) -> String { colour ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    /// `text` in red, when colour is on.
    func red(_ text: String) -> String { colour ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}

/// A one-line progress bar on standard error, redrawn in place: `[########......] 52% 1.0 MB of 2.0 MB`.
struct ProgressBar {
    static let width = 30

    /// The bar for a fraction (or an indeterminate one) and a byte count.
    static func line(fraction: Double?, bytes: Int64, total: Int64?) -> String {
        let done = Int((fraction ?? 0) * Double(width))
        let bar = String(repeating: "#", count: done) + String(repeating: ".", count: width - done)
        let percent = fraction.map { "\(Int($0 * 100))%" } ?? "  ?"
        let size = total.map { " of \(megabytes($0))" } ?? ""
        return "[\(bar)] \(percent) \(megabytes(bytes))\(size)"
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
