import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Integration: connections per host and cookies", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct ConnectionAndCookieTests {
    struct Holds: Decodable {
        let peak: Int
        let connections: Int
        let requests: Int
    }

    static func holds(key: String) async throws -> Holds {
        let url = try #require(FaultServer.url).appendingPathComponent("_holds")
            .appending(queryItems: [URLQueryItem(name: "key", value: key)])
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode(Holds.self, from: data)
    }

    @Test("six calls at once through a transport allowed two connections per host: two at a time, over two connections")
    func connectionsPerHost() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make(maximumConnectionsPerHost: 2))
        let endpoint = FaultServer.endpoint("hold", query: ["ms": 300, "key": .string(key)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let data = try await client.request(endpoint).data
                    #expect(data == Data("held".utf8))
                }
            }
            try await group.waitForAll()
        }
        let holds = try await Self.holds(key: key)
        #expect(holds.requests == 6)
        #expect(holds.peak == 2, "at most two requests were held at once")
        #expect(holds.connections == 2, "the two connections were reused")
    }

    @Test("a cookie the server sets in a storage given to the transport goes back with the next request")
    func cookieRoundTrip() async throws {
        let key = FaultServer.probe()
        let name = "nal\(key.prefix(8))"
        let client = Client<TestEndpoint>(
            transport: TestTransports.make(cookieStorage: TestTransports.privateCookieStorage()))
        _ = try await client.request(
            FaultServer.endpoint("set-cookie", query: ["name": .string(name), "key": .string(key)]))
        let echo = try await client.request(FaultServer.endpoint("echo")).decode(FaultServer.Echo.self)
        #expect(echo.header("Cookie")?.contains("\(name)=cookie-\(key)-77") == true)
    }

    @Test(
        "a cookie set by a redirect's response reaches the redirect's target",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func cookieAcrossRedirect() async throws {
        let name = "nal\(FaultServer.probe().prefix(8))"
        let client = Client<TestEndpoint>(
            transport: TestTransports.make(cookieStorage: TestTransports.privateCookieStorage()))
        struct Cookies: Decodable { let cookies: [String: String] }
        // httpbin answers /cookies/set with a 302 that sets the cookie, to /cookies, which lists those it received.
        let endpoint = HTTPBin.endpoint(
            "cookies/set", requestType: .parameters([name: "baked"], encoding: URLEncoding.queryString))
        let cookies = try await client.request(endpoint).decode(Cookies.self).cookies
        #expect(cookies[name] == "baked")
    }
}
