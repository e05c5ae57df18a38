import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Bad settings of stubs are clamped, with one warning")
struct StubSettingLimitsTests {
    static let year = Duration.seconds(365 * 24 * 3600)

    @Test("StubResponse: a negative delay or stream interval is 0, a century a year; speed at least 1, cut at least 0")
    func responseModifiers() async throws {
        let (responses, warnings) = try await LogCapture.settingWarnings {
            (
                StubResponse().delayed(by: .milliseconds(-6_101)),
                StubResponse().delayed(by: .seconds(Int64.max)),
                StubResponse.stream([Data("a".utf8)], interval: .milliseconds(-6_102)),
                StubResponse.events([ServerSentEvent(data: "a")], interval: .seconds(6_103_000_000)),
                StubResponse().throttled(bytesPerSecond: -6_104),
                StubResponse().truncated(after: -6_105)
            )
        }
        #expect(responses.0.delay == .zero)
        #expect(responses.1.delay == Self.year)
        #expect(responses.2.chunkInterval == .zero)
        #expect(responses.3.chunkInterval == Self.year)
        #expect(responses.4.bytesPerSecond == 1)
        #expect(responses.5.truncationPoint == 0)
        #expect(
            warnings.filter { $0.contains("-6.101") }
                == ["StubResponse.delayed delay -6.101 seconds is below 0.0 seconds; using 0.0 seconds"])
        #expect(
            warnings.filter { $0.contains("StubResponse.delayed delay \(Duration.seconds(Int64.max))") }
                == [
                    "StubResponse.delayed delay \(Duration.seconds(Int64.max)) is above 31536000.0 seconds; using 31536000.0 seconds"
                ])
        #expect(
            warnings.filter { $0.contains("-6.102") }
                == ["StubResponse.stream interval -6.102 seconds is below 0.0 seconds; using 0.0 seconds"])
        #expect(warnings.filter { $0.contains("6103000000") }.count == 1)
        #expect(
            warnings.filter { $0.contains("-6104") } == [
                "StubResponse.throttled bytesPerSecond -6104 is below 1; using 1"
            ])
        #expect(warnings.filter { $0.contains("-6105") } == ["StubResponse.truncated after -6105 is below 0; using 0"])
    }

    @Test("StubResponse: good modifiers log nothing")
    func quiet() async throws {
        let (response, warnings) = try await LogCapture.settingWarnings {
            StubResponse().delayed(by: .milliseconds(6_106)).throttled(bytesPerSecond: 6_107).truncated(after: 6_108)
        }
        #expect(response.bytesPerSecond == 6_107)
        #expect(!warnings.contains { $0.contains("6.106") || $0.contains("6107") || $0.contains("6108") })
    }

    @Test("StubTransport: negative sizes and capacity are 0")
    func transport() async throws {
        let (stubs, warnings) = try await LogCapture.settingWarnings {
            StubTransport<TestEndpoint>(
                .immediate, maximumResponseSize: -6_111, journalCapacity: -6_112, journaledBodyLimit: -6_113)
        }
        #expect(
            warnings.filter { $0.contains("-6111") } == ["StubTransport maximumResponseSize -6111 is below 0; using 0"])
        #expect(warnings.filter { $0.contains("-6112") } == ["StubTransport journalCapacity -6112 is below 0; using 0"])
        #expect(
            warnings.filter { $0.contains("-6113") } == ["StubTransport journaledBodyLimit -6113 is below 0; using 0"])
        // The limit used is 0: a body of one byte is too large, and the journal keeps nothing.
        stubs.stub(TestEndpoint(), with: .string("x"))
        let error = await #expect(throws: NALError.self) {
            _ = try await Client<TestEndpoint>(transport: stubs).request(TestEndpoint())
        }
        guard case .responseTooLarge(let limit, _) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 0)
        #expect(stubs.requests.isEmpty)
    }

    @Test("StubServer: a negative journal capacity and body limit are 0")
    func server() async throws {
        let (server, warnings) = try await LogCapture.settingWarnings {
            StubServer(journalCapacity: -6_121, journaledBodyLimit: -6_122)
        }
        #expect(server.journalCapacity == 0)
        #expect(server.journaledBodyLimit == 0)
        #expect(warnings.filter { $0.contains("-6121") } == ["StubServer journalCapacity -6121 is below 0; using 0"])
        #expect(warnings.filter { $0.contains("-6122") } == ["StubServer journaledBodyLimit -6122 is below 0; using 0"])
    }

    @Test("a delay or interval set on the var to a Duration extreme is waited as a year, not trapped on")
    func hostileVars() async throws {
        var response = StubResponse(body: Data("ab".utf8))
        response.delay = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
        let delayed = response
        let waiting = Task { () -> Bool in
            do throws(StubPlayback.Failure) {
                try await StubPlayback(response: delayed).waitForStart()
                return false
            } catch {
                if case .cancelled = error { return true }
                return false
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value)
        response.delay = Duration(secondsComponent: .min, attosecondsComponent: 0)
        response.chunkInterval = Duration(secondsComponent: .min, attosecondsComponent: 0)
        response.bytesPerSecond = .min
        response.truncationPoint = .min
        #expect(response.chunkInterval == .zero && response.bytesPerSecond == 1 && response.truncationPoint == 0)
        try await StubPlayback(response: response).waitForStart()
    }
}
