import Foundation
import Testing

@testable import NALStubbing

@Suite("Patterns that are plain text are matched without the regex engine, with the regex's answers")
struct LiteralPatternTests {
    /// What ICU answers for `pattern` on `subject`.
    private static func regexAnswer(_ pattern: String, _ subject: String, caseInsensitive: Bool) throws -> Bool {
        let expression = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        return expression.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }

    @Test(
        "anchors, groups, case and line terminators: the literal answers, and as ICU does",
        arguments: [
            ("/users/octocat$", "http://127.0.0.1:8080/users/octocat"),
            ("/users/octocat$", "http://127.0.0.1:8080/users/octocat/repos"),
            ("/users/octocat$", "http://127.0.0.1:8080/USERS/OCTOCAT"),
            ("/users/octocat$", "http://h/users/octocat\n"),
            ("/users/octocat$", "http://h/users/octocat\r\n"),
            ("/users/octocat$", "http://h/users/octocat\n\n"),
            ("/users/octocat$", "/users/octocat\r"),
            ("/users/octocat$", "octocat"),
            ("/users/octocat$", "/users/octocat\u{2028}"),
            ("/users/octocat$", "/users/octocat\u{0B}"),
            ("/users/octocat$", "/users/octocat\u{0C}"),
            ("/users/octocat$", "/users/octocat\u{0C}\n"),
            ("/users/octocat$", "/users/octocat\u{85}"),
            ("/users/octocat$", "/users/octocat\u{2029}x"),
            ("/caf$", "/é/caf"),
            ("/caf$", "/café"),
            ("^https://api", "https://api.example.com/x"),
            ("^https://api", "http://x/https://api"),
            ("^/v1/hello$", "/v1/hello"),
            ("^/v1/hello$", "/v1/hello/"),
            ("^/v1/hello$", "x/v1/hello"),
            ("^(?:GET)$", "GET"),
            ("^(?:GET)$", "get"),
            ("^(?:GET)$", "GETS"),
            ("^(?:GET)$", "TARGET"),
            ("users", "http://h/a/users/b"),
            ("users", "http://h/a/user/b"),
            ("users", "us"),
            ("users", ""),
            ("ab", "aab"),
        ])
    func agreesWithICU(pattern: String, subject: String) throws {
        for caseInsensitive in [false, true] {
            let literal = try #require(LiteralPattern(pattern, caseInsensitive: caseInsensitive))
            let expected = try Self.regexAnswer(pattern, subject, caseInsensitive: caseInsensitive)
            // Only ICU knows how it folds the case of text beyond ASCII.
            let decided = !caseInsensitive || subject.unicodeScalars.allSatisfy(\.isASCII)
            #expect(
                literal.matches(subject) == (decided ? expected : nil),
                "\(pattern) on \(subject.debugDescription), case-insensitive \(caseInsensitive)")
        }
    }

    @Test(
        "patterns with any regex syntax inside are left to the regex engine",
        arguments: [
            "/users/\\d+$", "/a.b", "a|b", "^(?:GET|POST)$", "x*", "[ab]", "a{2}", "(a)", "^$", "$", "^", "", "a\\$",
            "(?:a)(?:b)", "a+", "é", "(?:ab", "^(?:GET",
        ])
    func notALiteral(pattern: String) {
        #expect(LiteralPattern(pattern, caseInsensitive: false) == nil)
        #expect(LiteralPattern(pattern, caseInsensitive: true) == nil)
    }

    @Test("case folded beyond ASCII is left to ICU, which folds the Kelvin sign to k")
    func undecided() throws {
        let kelvin = try #require(LiteralPattern("/k$", caseInsensitive: true))
        #expect(kelvin.matches("/\u{212A}") == nil)
        #expect(try Self.regexAnswer("/k$", "/\u{212A}", caseInsensitive: true))
        #expect(PathPattern("/k$", caseInsensitive: true).matches("/\u{212A}"))
        // When case matters, text beyond ASCII is compared byte for byte.
        let exact = try #require(LiteralPattern("/caf$", caseInsensitive: false))
        #expect(exact.matches("/é/caf") == true)
        #expect(exact.matches("/café") == false)
    }

    @Test("a stub's pattern answers through PathPattern as through ICU, literal or not")
    func throughPathPattern() throws {
        for (pattern, subject) in [("/users/octocat$", "http://h/users/octocat"), ("/users/\\d+$", "http://h/users/7")]
        {
            #expect(PathPattern(pattern, caseInsensitive: true).matches(subject))
            #expect(!PathPattern(pattern, caseInsensitive: true).matches(subject + "/x"))
        }
        #expect(!PathPattern("(", caseInsensitive: false).matches("("))
    }
}
