import Foundation
import NALCore
import NALTestSupport
import Testing

/// Every initialiser of `Client` with a flat list of settings takes every setting `Client.Settings` holds: a setting
/// added to `Settings` and forgotten by one initialiser (as `deduplicatedMethods:` once was by two) fails here,
/// read from the public API dumps of the three modules that declare initialisers.
@Suite("Client's initialisers take every setting")
struct ClientSettingsForwardingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The argument labels of every `Client` initialiser with flat settings in `API/<module>.json`.
    static func flatInitialisers(in module: String) throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent("API/\(module).json"), encoding: .utf8)
        let declarations = text.matches(of: /"declaration": "(?:convenience )?init\(([^"]*)\)"/).map { String($0.1) }
        return declarations.filter { $0.contains("Client<Service>.EndpointMapping") }.map { parameters in
            parameters.matches(of: /(?:^|, )([a-zA-Z]+)(?: [a-zA-Z]+)?:/).map { String($0.1) }
        }
    }

    @Test("the flat initialisers of NALCore, NALMiddleware and NALStubbing list every stored setting")
    func everySettingIsTaken() throws {
        let settings = Mirror(reflecting: Client<TestEndpoint>.Settings()).children.compactMap(\.label)
        #expect(settings.count >= 5, "\(settings)")
        var found = 0
        for module in ["NALCore", "NALMiddleware", "NALStubbing"] {
            for labels in try Self.flatInitialisers(in: module) {
                found += 1
                for setting in settings {
                    #expect(labels.contains(setting), "\(module): an initialiser lacks \(setting): \(labels)")
                }
            }
        }
        // Client(transport:…), Client(middleware:…), Client(stubbing:…), and Settings' own initialiser.
        #expect(found == 4)
    }

    @Test("Settings' defaults are Client()'s: with de-duplication on, GETs are shared and POSTs are not")
    func settingsDefaults() async throws {
        for (method, expected) in [(HTTPMethod.get, 1), (.post, 3)] {
            let transport = EchoTransport(delay: .milliseconds(200))
            let client = Client<TestEndpoint>(transport: transport, settings: .init(deduplicatesRequests: true))
            let endpoint = TestEndpoint(path: "same", method: method)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { _ = try await client.request(endpoint) } }
                try await group.waitForAll()
            }
            #expect(transport.calls == expected, "\(method)")
        }
    }

    @Test("the label reader finds the labels of a declaration as the dump writes it")
    func labelsAreRead() {
        let parameters = "stubbing behavior: StubBehavior<Service>, willSend: Client<Service>.RequestHook? = nil"
        let labels = parameters.matches(of: /(?:^|, )([a-zA-Z]+)(?: [a-zA-Z]+)?:/).map { String($0.1) }
        #expect(labels == ["stubbing", "willSend"])
    }
}
