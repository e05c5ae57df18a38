import Foundation

/// A compiled regular expression; `nil` when the pattern does not compile. A pattern that is plain text between
/// anchors is matched as text (`LiteralPattern`), with the same answers.
struct PathPattern: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once made and documented as safe to share between threads.
    let expression: NSRegularExpression?
    private let literal: LiteralPattern?

    init(_ pattern: String, caseInsensitive: Bool = false) {
        expression = try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        literal = expression == nil ? nil : LiteralPattern(pattern, caseInsensitive: caseInsensitive)
    }

    func matches(_ path: String) -> Bool {
        guard let expression else { return false }
        if let answer = literal?.matches(path) { return answer }
        return expression.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
    }
}
