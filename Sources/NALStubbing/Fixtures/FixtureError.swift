public import Foundation
import NALSupport

/// A fixture file that cannot be used: which file, where in it, and what is wrong.
///
/// Its description reads as compilers print errors, `path:line:column: message`, so editors and CI logs link to
/// the spot.
public struct FixtureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public let file: URL
    /// The 1-based line, when the problem has one.
    public let line: Int?
    /// The 1-based column, when known.
    public let column: Int?
    /// What is wrong, as a sentence fragment.
    public let message: String

    /// Creates an error.
    public init(file: URL, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// The most bytes a fixture file (a `.tail` file, a HAR file, a cassette) may hold: 256 MiB. Its parse holds
    /// several times as much; a recording meant to be larger belongs in several files, or in a file-backed body.
    public static let largestFile = 256 << 20

    /// The bytes of the fixture file `file`, or an error that names it.
    static func contents(of file: URL) throws(FixtureError) -> Data {
        // A FIFO would block the read, a device never end it, and Foundation blames permissions: each is named.
        do throws(BoundedFile.Failure) {
            return try BoundedFile.contents(ofPath: file.path, atMost: largestFile)
        } catch {
            throw FixtureError(file: file, message: error.problem)
        }
    }

    /// `path:line:column: message`.
    public var description: String {
        var location = file.path
        if let line { location += ":\(line)" }
        if let line = line, line > 0, let column { location += ":\(column)" }
        return "\(location): \(message)"
    }
}
