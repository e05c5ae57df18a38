import NALLogging
import Testing

@Suite("LogMessage rendering")
struct LogMessageTests {
    @Test("dynamic strings are private by default; numbers and booleans public")
    func autoPrivacy() {
        let user = "ada@example.com"
        let count = 3
        let message: LogMessage = "user \(user) has \(count) items, admin \(true), ratio \(0.5)"
        #expect(message.rendered() == "user <private> has 3 items, admin true, ratio 0.5")
        #expect(
            message.rendered(revealingPrivateValues: true) == "user ada@example.com has 3 items, admin true, ratio 0.5")
    }

    @Test("explicit privacy options, exact output")
    func explicitPrivacy() {
        let token = "s3cr3t-token"
        let host = "api.example.com"
        let code = 418
        let message: LogMessage =
            "token \(token, privacy: .private(mask: .hash)) host \(host, privacy: .public) code \(code, privacy: .private)"
        #expect(message.rendered() == "token <mask.hash: 'b3c841f181a557f1'> host api.example.com code <private>")
    }

    @Test("the hash mask is stable: same value, same hash; different value, different hash")
    func stableHash() {
        let first: LogMessage = "\("abc", privacy: .private(mask: .hash))"
        let again: LogMessage = "\("abc", privacy: .private(mask: .hash))"
        let other: LogMessage = "\("abd", privacy: .private(mask: .hash))"
        #expect(first.rendered() == again.rendered())
        #expect(first.rendered() != other.rendered())
        // FNV-1a 64 of "abc" is a published test vector: 0xe71fa2190541574b.
        #expect(first.rendered() == "<mask.hash: 'e71fa2190541574b'>")
    }

    @Test("integer, float and alignment formatting")
    func formatting() {
        let value = 255
        let negative = -26
        let pi = 3.14159
        let message: LogMessage = """
            [\(value, format: .hex)] [\(value, format: .hex(includePrefix: false, uppercase: true))] \
            [\(value, format: .octal)] [\(negative, format: .hex)] [\(pi, format: .fixed(precision: 2))] \
            [\(pi, format: .exponential(precision: 1))] [\(value, align: .right(columns: 6))] \
            [\("ab", align: .left(columns: 4), privacy: .public)]
            """
        #expect(message.rendered() == "[0xff] [FF] [377] [-0x1a] [3.14] [3.1e+00] [   255] [ab  ]")
    }

    @Test("a value wider than its column is shown whole, neither cut nor padded, on either side")
    func alignmentNarrowerThanValue() {
        let value = 123_456
        let message: LogMessage = """
            [\("abcdef", align: .left(columns: 3), privacy: .public)] [\(value, align: .right(columns: 2))] \
            [\("abc", align: .left(columns: 3), privacy: .public)]
            """
        #expect(message.rendered() == "[abcdef] [123456] [abc]")
    }

    @Test("errors and other values are private by default")
    func errorsAndValues() {
        struct Failure: Error, CustomStringConvertible { var description: String { "disk full" } }
        let error: any Error = Failure()
        let message: LogMessage = "failed: \(error); level \(LogLevel.error, privacy: .public)"
        #expect(message.rendered() == "failed: <private>; level error")
        #expect(message.rendered(revealingPrivateValues: true) == "failed: disk full; level error")
        struct Account: CustomStringConvertible { var description: String { "acct-42" } }
        let value: LogMessage = "account \(Account())"
        #expect(value.rendered() == "account <private>")
        #expect(value.rendered(revealingPrivateValues: true) == "account acct-42")
    }
}
