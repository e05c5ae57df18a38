import Foundation

/// A compiled regular expression; `nil` when the pattern does not compile.
struct PathPattern: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once made and documented as safe to share between threads.
    let expression: NSRegularExpression?

    init(_ pattern: String, caseInsensitive: Bool = false) {
        expression = try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
    }

    func matches(_ path: String) -> Bool {
        guard let expression else { return false }
        return expression.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
    }
}
