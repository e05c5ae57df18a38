import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The local httpbin that `scripts/test.sh` starts and announces in `NAL_HTTPBIN_URL`.
enum HTTPBin {
    static let url: URL? = ProcessInfo.processInfo.environment["NAL_HTTPBIN_URL"].flatMap(URL.init(string:))

    static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    static let skipReason: Comment = "NAL_HTTPBIN_URL is not set: run scripts/test.sh to start httpbin"

    /// An endpoint on httpbin.
    static func endpoint(
        _ path: String, method: HTTPMethod = .get, requestType: RequestType = .plain,
        headers: [String: String]? = nil, validation: RequestValidation = .successCodes, timeout: TimeInterval? = nil
    ) -> TestEndpoint {
        TestEndpoint(
            baseURL: url ?? URL(fileURLWithPath: "/"), path: path, method: method, requestType: requestType,
            headers: headers, validation: validation, timeout: timeout)
    }

    /// The same httpbin under the name `localhost`: another origin for the browser and for NAL.
    static var otherOrigin: String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.host = "localhost"
        return components.string ?? ""
    }
}

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
