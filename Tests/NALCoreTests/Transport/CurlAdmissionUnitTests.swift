#if os(Linux)
    import Foundation
    @testable import NALCore
    import Testing

    /// What `CurlAdmission` counts as one origin, and how many transfers it lets into libcurl for each.
    @Suite("CurlAdmission: origins and limits")
    struct CurlAdmissionUnitTests {
        private func origin(_ text: String) throws -> CurlAdmission.Origin {
            CurlAdmission.Origin(try #require(URL(string: text)))
        }

        @Test("one origin whatever the scheme's and host's case, the default port written or not, and the path")
        func originsAreNormalised() throws {
            #expect(try origin("http://Example.COM/a") == origin("HTTP://example.com:80/b?c"))
            #expect(try origin("https://example.com") == origin("https://EXAMPLE.com:443/x"))
            #expect(try origin("HTTPS://API.EXAMPLE.COM/v1") == origin("https://api.example.com:443"))
            #expect(try origin("HTTPS://API.EXAMPLE.COM").isSecure)
            #expect(try origin("http://example.com") != origin("https://example.com"))
            #expect(try origin("http://example.com") != origin("http://example.com:8080"))
            #expect(try origin("http://example.com") != origin("http://example.org"))
        }

        @Test("http gets the per-host connections, https a hundred times as many (HTTP/2's streams)")
        func limits() throws {
            let admission = CurlAdmission(connectionsPerHost: 6)
            #expect(try admission.limit(of: origin("http://example.com")) == 6)
            #expect(try admission.limit(of: origin("https://example.com")) == 600)
            // libcurl reads 0 as no limit: the transport never asks for fewer than one.
            #expect(try CurlAdmission(connectionsPerHost: 0).limit(of: origin("http://example.com")) == 1)
        }

        @Test("calls are admitted up to the limit, per origin; a slot given back with nobody waiting is freed")
        func slotsPerOrigin() throws {
            var admission = CurlAdmission(connectionsPerHost: 2)
            let first = try origin("http://a.example")
            let second = try origin("http://b.example")
            #expect(admission.enter(first) == .admitted)
            #expect(admission.enter(first) == .admitted)
            #expect(admission.enter(first) == .full)
            #expect(admission.enter(second) == .admitted)
            #expect(admission.admittedCount(of: first) == 2 && admission.admittedCount(of: second) == 1)
            #expect(admission.release(first) == nil)
            #expect(admission.admittedCount(of: first) == 1)
            #expect(admission.enter(first) == .admitted)
            for _ in 0..<2 { _ = admission.release(first) }
            _ = admission.release(second)
            #expect(admission.admittedCount(of: first) == 0 && admission.admittedCount(of: second) == 0)
            #expect(admission.waitingCount == 0 && admission.earliestDeadline == nil)
        }
    }
#endif
