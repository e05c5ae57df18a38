#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALTestSupport
    import Testing

    @testable import NALCore

    /// Which cookies CurlTransport stores and sends: a hostile server must not set cookies for a whole top-level
    /// domain, flood the storage, or store a cookie that would fail every later request.
    @Suite("CurlTransport's cookies: what is stored and sent")
    struct CookieAcceptanceTests {
        static func parsed(_ fields: [String], for url: String) throws -> (cookies: [HTTPCookie], url: URL) {
            let url = try #require(URL(string: url))
            let cookies = fields.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
            return (cookies, url)
        }

        @Test(
            "a cookie's domain is its host or a parent of it, never one label, and an address takes host cookies only",
            arguments: [
                ("evil.example.com", ".example.com", true), ("evil.example.com", "evil.example.com", true),
                ("evil.example.com", ".com", false), ("evil.localhost", ".localhost", false),
                ("evil.example.com", ".other.com", false), ("example.com", ".example.com", true),
                ("evil.example.com", "example.com", false), ("127.0.0.1", ".0.0.1", false),
                ("127.0.0.1", "127.0.0.1", true), ("localhost", ".localhost", true),
            ])
        func domains(host: String, domain: String, allowed: Bool) {
            #expect(CookieAcceptance.domainIsAllowed(domain, for: host) == allowed)
        }

        @Test("a control character, a Secure cookie over http and cookies past the caps are not stored")
        func storable() throws {
            let bad = try Self.parsed(
                ["p=a\u{7F}b; Path=/", "ok=1; Path=/", "s=1; Secure"], for: "http://a.example.com/")
            #expect(CookieAcceptance.storable(bad.cookies, from: bad.url, stored: 0).map(\.name) == ["ok"])
            let domains = try Self.parsed(
                ["tld=1; Domain=.com", "foreign=1; Domain=.other.com", "parent=1; Domain=.example.com"],
                for: "https://a.example.com/")
            #expect(domains.cookies.count == 3)
            #expect(CookieAcceptance.storable(domains.cookies, from: domains.url, stored: 0).map(\.name) == ["parent"])
            let flood = try Self.parsed((0..<400).map { "c\($0)=v; Path=/" }, for: "https://a.example.com/")
            #expect(flood.cookies.count == 400)
            #expect(CookieAcceptance.storable(flood.cookies, from: flood.url, stored: 0).count == 50)
            #expect(CookieAcceptance.storable(flood.cookies, from: flood.url, stored: 140).count == 10)
            #expect(CookieAcceptance.storable(flood.cookies, from: flood.url, stored: 150).isEmpty)
            let huge = try Self.parsed(["big=\(String(repeating: "x", count: 5000))"], for: "https://a.example.com/")
            #expect(CookieAcceptance.storable(huge.cookies, from: huge.url, stored: 0).isEmpty)
        }

        @Test(
            "a stored cookie no header can carry is left out, not sent to fail the request",
            .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
        func poisonedStorage() async throws {
            let storage = TestTransports.privateCookieStorage()
            let url = try #require(HTTPBin.url)
            for (name, value) in [("poison", "a\u{7F}b"), ("good", "1")] {
                let cookie = try #require(
                    HTTPCookie(properties: [
                        .name: name, .value: value, .domain: url.host ?? "", .path: "/", .originURL: url,
                    ]))
                storage.setCookie(cookie)
            }
            let client = Client<TestEndpoint>(transport: try CurlTransport(cookieStorage: storage))
            let echoed = try await client.request(HTTPBin.endpoint("cookies"), as: [String: [String: String]].self)
            #expect(echoed["cookies"] == ["good": "1"])
        }

        @Test("dump(transport) shows its settings, never the cookies of its storage")
        func dumpHidesCookies() throws {
            let storage = TestTransports.privateCookieStorage()
            let url = try #require(URL(string: "https://a.example.com/"))
            storage.setCookies(
                HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "sid=T0PSECRET"], for: url), for: url,
                mainDocumentURL: url)
            #expect(storage.cookies?.count == 1)
            var text = ""
            dump(try CurlTransport(cookieStorage: storage), to: &text)
            #expect(!text.contains("T0PSECRET"))
            #expect(text.contains("maximumConnectionsPerHost"))
        }
    }
#endif
