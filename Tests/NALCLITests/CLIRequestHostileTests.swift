import Foundation
import Testing

/// `nal-cli request` against hostile input and hostile servers (issue 39's -O, -i, -v and status line work): the CLI
/// never prints a secret it was given, and never sends a server's escape sequence to the terminal.
@Suite(
    "nal-cli request against hostile input",
    .enabled(
        if: CLIProcessTests.httpbin != nil && CLIProcessTests.faultServer != nil,
        "NAL_HTTPBIN_URL or NAL_FAULT_URL is not set: run scripts/test.sh to start httpbin and the fault server"))
struct CLIRequestHostileTests {
    static var fault: String { CLIRequestTests.fault }

    static func run(_ arguments: String...) async throws -> CLIProcessTests.Result {
        try await CLIProcessTests.run(executable: "nal-cli", arguments)
    }

    @Test(
        "a usage error never echoes a password or token from the URL or a header",
        arguments: [
            ["request", "GET", "https://ada:hunter2@example.com/?access_token=tok-9", "-O"],
            ["request", "GET", "ftp://ada:hunter2@example.com/?access_token=tok-9"],
            ["request", "GET", "https://example.com/x", "-H", "Authorization Bearer hunter2"],
        ])
    func usageErrorsRedact(arguments: [String]) async throws {
        let result = try await CLIProcessTests.run(executable: "nal-cli", arguments)
        #expect(result.status == 64)
        #expect(!result.standardError.contains("hunter2"), "\(result.standardError)")
        #expect(!result.standardError.contains("tok-9"), "\(result.standardError)")
    }

    #if os(Linux)
        @Test("-i never prints an escape sequence a server put in a header name or value")
        func includeEscapesHeaders() async throws {
            let value = try await Self.run(
                "request", "GET", "\(Self.fault)/status/200?header=X-Evil:%1B%5D0;pwned%07%1B%5B31mred&body=hi", "-i")
            #expect(value.status == 0)
            #expect(!value.standardOutput.contains("\u{1B}"), "\(value.standardOutput.debugDescription)")
            #expect(!value.standardOutput.contains("\u{07}"), "\(value.standardOutput.debugDescription)")
            let name = try await Self.run(
                "request", "GET", "\(Self.fault)/status/200?header=X%1B%5B31mName:v&body=hi", "-i")
            #expect(!name.standardOutput.contains("\u{1B}"), "\(name.standardOutput.debugDescription)")
        }

        @Test("-v escapes C1 control characters (U+009B is CSI) as it escapes C0 ones")
        func verboseEscapesC1() async throws {
            // %C2%9B: the fault server sends the single byte 0x9B, which CurlTransport reads as ISO-8859-1 U+009B.
            let result = try await Self.run(
                "request", "GET", "\(Self.fault)/status/200?header=X-Evil:%C2%9B31mC1&body=hi", "-v")
            #expect(result.status == 0)
            let line = result.standardError.split(separator: "\n").first { $0.contains("X-Evil: ") }
            #expect(line?.unicodeScalars.contains("\u{9B}") == false, "\(line.debugDescription)")
        }

        @Test("a timeout out of range is named by its option (--max-time), not the library's field")
        func hugeMaxTimeNamesOption() async throws {
            let result = try await Self.run(
                "request", "GET", "\(Self.fault)/fast", "--max-time", "99999999999999999999")
            #expect(result.status == 64)
            #expect(result.standardError.contains("--max-time"), "\(result.standardError)")
            #expect(!result.standardError.contains("totalTimeout"), "\(result.standardError)")
        }
    #endif
}
