import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// In CI a missing server is a failure. Elsewhere it is a skip that Swift Testing reports with its reason, so a
/// run without servers says so in its summary; when a server is there, it must answer.
@Suite("Integration servers are there")
struct IntegrationServerTests {
    static var bothOrCI: Bool { HTTPBin.isCI || (HTTPBin.url != nil && FaultServer.url != nil) }

    @Test("httpbin answers /get", .enabled(if: HTTPBin.isCI || HTTPBin.url != nil, HTTPBin.skipReason))
    func httpbin() async throws {
        let url = try #require(
            HTTPBin.url, "CI=true but NAL_HTTPBIN_URL is not set; scripts/test.sh must start httpbin")
        let response = try await Client<TestEndpoint>().request(TestEndpoint(baseURL: url, path: "get"))
        #expect(response.statusCode == 200)
    }

    @Test(
        "the fault server answers /fast", .enabled(if: HTTPBin.isCI || FaultServer.url != nil, FaultServer.skipReason))
    func faultServer() async throws {
        let url = try #require(
            FaultServer.url, "CI=true but NAL_FAULT_URL is not set; scripts/test.sh must start the fault server")
        let response = try await Client<TestEndpoint>().request(TestEndpoint(baseURL: url, path: "fast"))
        #expect(response.string() == "fast")
    }
}
