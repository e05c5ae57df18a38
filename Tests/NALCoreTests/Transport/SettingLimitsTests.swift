import Foundation
import NALLogging
import NALTestSupport
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Bad settings of NALCore's initialisers are clamped, with one warning")
struct SettingLimitsTests {
    @Test("URLSessionTransport: a negative maximumResponseSize and multipartMemoryThreshold are 0")
    func urlSessionTransport() async throws {
        let (transport, warnings) = try await LogCapture.settingWarnings {
            URLSessionTransport(maximumResponseSize: -4_101, multipartMemoryThreshold: -4_102)
        }
        #expect(transport.maximumResponseSize == 0)
        #expect(transport.multipartMemoryThreshold == 0)
        #expect(
            warnings.filter { $0.contains("-4101") } == [
                "URLSessionTransport maximumResponseSize -4101 is below 0; using 0"
            ])
        #expect(
            warnings.filter { $0.contains("-4102") } == [
                "URLSessionTransport multipartMemoryThreshold -4102 is below 0; using 0"
            ])
    }

    @Test("a good setting logs nothing")
    func goodSettingsAreQuiet() async throws {
        let (transport, warnings) = try await LogCapture.settingWarnings {
            URLSessionTransport(maximumResponseSize: 4_103, multipartMemoryThreshold: 0)
        }
        #expect(transport.maximumResponseSize == 4_103)
        #expect(!warnings.contains { $0.contains("4103") })
    }

    #if os(Linux)
        @Test(
            "CurlTransport: negative sizes are 0, fewer than 1 connection per host is 1; a bad idle timeout still throws"
        )
        func curlTransport() async throws {
            let (transport, warnings) = try await LogCapture.settingWarnings {
                try CurlTransport(
                    maximumResponseSize: -4_111, maximumConnectionsPerHost: -4_112, multipartMemoryThreshold: -4_113)
            }
            #expect(transport.maximumResponseSize == 0)
            #expect(transport.maximumConnectionsPerHost == 1)
            #expect(transport.multipartMemoryThreshold == 0)
            #expect(
                warnings.filter { $0.contains("-4111") } == [
                    "CurlTransport maximumResponseSize -4111 is below 0; using 0"
                ])
            #expect(
                warnings.filter { $0.contains("-4112") } == [
                    "CurlTransport maximumConnectionsPerHost -4112 is below 1; using 1"
                ])
            #expect(
                warnings.filter { $0.contains("-4113") } == [
                    "CurlTransport multipartMemoryThreshold -4113 is below 0; using 0"
                ])
            #expect(throws: NALError.self) { try CurlTransport(idleTimeout: -1) }
        }

        @Test("CurlTransport: Int.max connections per host admits https calls without overflowing")
        func hugeConnectionLimit() throws {
            let admission = CurlAdmission(connectionsPerHost: .max)
            #expect(admission.limit(of: CurlAdmission.Origin(try #require(URL(string: "https://example.com")))) == .max)
        }
    #endif

    @Test("RequestOptions.maximumResponseSize below 0 fails the call with a typed error, before anything is sent")
    func perCallResponseSize() async throws {
        let transport = MemoryTransport(body: Data("{}".utf8))
        let client = Client<TestEndpoint>(transport: transport)
        for value in [-1, Int.min] {
            let error = await #expect(throws: NALError.self) {
                _ = try await client.request(TestEndpoint(), options: RequestOptions(maximumResponseSize: value))
            }
            guard case .invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                continue
            }
            #expect(reason == .invalidSizeLimit(setting: "RequestOptions.maximumResponseSize", value: value))
            #expect(error?.description.contains("RequestOptions.maximumResponseSize is \(value)") == true)
        }
        #expect(transport.requests.isEmpty)
        // 0 and Int.max are sizes.
        for value in [0, Int.max] {
            _ = try await client.request(TestEndpoint(), options: RequestOptions(maximumResponseSize: value))
        }
        #expect(transport.requests.count == 2)
    }

    @Test("ServerSentEventParser: maximumEventSize below 1 is 1")
    func eventParser() async throws {
        let (parser, warnings) = try await LogCapture.settingWarnings {
            ServerSentEventParser(maximumEventSize: -4_121)
        }
        #expect(parser.maximumEventSize == 1)
        #expect(
            warnings.filter { $0.contains("-4121") } == [
                "ServerSentEventParser maximumEventSize -4121 is below 1; using 1"
            ])
    }

    @Test("ResponseStream.lines and jsonLines: maximumLineLength below 1 is 1")
    func lineLengths() async throws {
        let client = Client<TestEndpoint>(transport: MemoryTransport(body: Data("{}\n".utf8)))
        let (lengths, warnings) = try await LogCapture.settingWarnings {
            let lines = try await client.stream(TestEndpoint()).lines(maximumLineLength: -4_131)
            let json = try await client.stream(TestEndpoint()).jsonLines(
                of: [String: Int].self, maximumLineLength: .min)
            return (lines.maximumLineLength, json.lines.maximumLineLength)
        }
        #expect(lengths == (1, 1))
        #expect(
            warnings.filter { $0.contains("-4131") } == [
                "ResponseStream.lines maximumLineLength -4131 is below 1; using 1"
            ])
        #expect(
            warnings.filter { $0.contains("\(Int.min)") }
                == ["ResponseStream.jsonLines maximumLineLength \(Int.min) is below 1; using 1"])
    }

    @Test("StreamedBody.makeStream: highWater below 1 is 1, a negative maximumSpilled is 0")
    func streamedBody() async throws {
        let ((body, _), warnings) = try await LogCapture.settingWarnings {
            StreamedBody.makeStream(highWater: -4_141, spillsToDisk: true, maximumSpilled: -4_142)
        }
        #expect(body.channel.highWater == 1)
        #expect(body.channel.maximumSpilled == 0)
        #expect(warnings.filter { $0.contains("-4141") } == ["StreamedBody highWater -4141 is below 1; using 1"])
        #expect(warnings.filter { $0.contains("-4142") } == ["StreamedBody maximumSpilled -4142 is below 0; using 0"])
    }

    @Test("ReconnectionPolicy: each delay, the multiplier and maximumAttempts are brought into range, one warning each")
    func reconnectionPolicy() async throws {
        let (policy, warnings) = try await LogCapture.settingWarnings {
            ReconnectionPolicy(
                initialDelay: .milliseconds(-4_151), maximumDelay: .seconds(Int64.max), multiplier: .nan,
                maximumAttempts: -4_152, minimumDelay: .milliseconds(-4_153))
        }
        let year = Duration.seconds(365 * 24 * 3600)
        #expect(policy.minimumDelay == .zero)
        #expect(policy.initialDelay == .zero)
        #expect(policy.maximumDelay == year)
        #expect(policy.multiplier == 1)
        #expect(policy.maximumAttempts == 0)
        #expect(
            warnings.filter { $0.contains("ReconnectionPolicy minimumDelay") }
                == ["ReconnectionPolicy minimumDelay -4.153 seconds is below 0.0 seconds; using 0.0 seconds"])
        #expect(
            warnings.filter { $0.contains("ReconnectionPolicy initialDelay -4.151") }
                == ["ReconnectionPolicy initialDelay -4.151 seconds is below 0.0 seconds; using 0.0 seconds"])
        #expect(
            warnings.filter { $0.contains("ReconnectionPolicy maximumDelay \(Duration.seconds(Int64.max))") }.count == 1
        )
        #expect(
            warnings.filter { $0.contains("ReconnectionPolicy multiplier nan") } == [
                "ReconnectionPolicy multiplier nan is not a number; using 1.0"
            ])
        #expect(
            warnings.filter { $0.contains("-4152") } == ["ReconnectionPolicy maximumAttempts -4152 is below 0; using 0"]
        )
        let (steep, more) = try await LogCapture.settingWarnings {
            ReconnectionPolicy(multiplier: -.infinity, minimumDelay: .milliseconds(4_154))
        }
        #expect(steep.multiplier == 1)
        #expect(steep.initialDelay == .milliseconds(4_154))
        #expect(
            more.filter { $0.contains("ReconnectionPolicy multiplier -inf") } == [
                "ReconnectionPolicy multiplier -inf is below 1.0; using 1.0"
            ])
        #expect(
            more.filter { $0.contains("ReconnectionPolicy initialDelay 1.0 seconds is below 4.154 seconds") }.count == 1
        )
        let (good, none) = try await LogCapture.settingWarnings {
            ReconnectionPolicy(maximumDelay: .seconds(4_155), multiplier: 3)
        }
        #expect(good.maximumDelay == .seconds(4_155))
        #expect(!none.contains { $0.contains("4155") || $0.contains("multiplier 3") })
    }

    @Test("hostile values never trap: Int.min, Int.max, NaN, infinities, Duration extremes")
    func hostileValues() {
        let extreme = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
        let lowest = Duration(secondsComponent: .min, attosecondsComponent: 0)
        for delay in [extreme, lowest] {
            let policy = ReconnectionPolicy(initialDelay: delay, maximumDelay: delay, minimumDelay: delay)
            #expect(policy.delay(afterFailures: .max, serverRetry: delay) <= SettingClamp.longestWait)
            #expect(SettingClamp.sleepable(delay) >= .zero && SettingClamp.sleepable(delay) <= SettingClamp.longestWait)
        }
        for multiplier in [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude] {
            #expect((1...1000).contains(ReconnectionPolicy(multiplier: multiplier).multiplier))
        }
        for size in [Int.min, Int.max] {
            #expect(
                URLSessionTransport(maximumResponseSize: size, multipartMemoryThreshold: size).maximumResponseSize >= 0)
            #expect(ServerSentEventParser(maximumEventSize: size).maximumEventSize >= 1)
            _ = StreamedBody.makeStream(highWater: size, maximumSpilled: Int64(size))
        }
    }
}
