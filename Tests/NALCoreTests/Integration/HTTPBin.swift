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

@Suite("httpbin availability")
struct HTTPBinAvailabilityTests {
    @Test("in CI a missing httpbin is a failure, not a skip")
    func availableInCI() {
        if HTTPBin.isCI {
            #expect(HTTPBin.url != nil, "CI=true but NAL_HTTPBIN_URL is not set; scripts/test.sh must start httpbin")
        } else if HTTPBin.url == nil {
            print("note: integration tests against httpbin are skipped: \(HTTPBin.skipReason)")
        }
    }
}
