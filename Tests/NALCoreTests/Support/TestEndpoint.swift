import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose every part a test can set.
struct TestEndpoint: RemoteService {
    var baseURL = URL(string: "https://api.example.com/v1")!
    var path = ""
    var method = HTTPMethod.get
    var requestType = RequestType.plain
    var headers: [String: String]? = nil
    var validation = RequestValidation.successCodes
    var timeout: TimeInterval? = nil
    var totalTimeout: TimeInterval? = nil
    var cachePolicy: URLRequest.CachePolicy? = nil
}

/// The reference workload from the Core issue.
let referenceParameters: Parameters = [
    "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
    "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
]

func invalidRequestReason(_ body: () throws -> some Any) -> InvalidRequestReason? {
    do {
        _ = try body()
    } catch NALError.invalidRequest(let reason) {
        return reason
    } catch {}
    return nil
}

func encodingFailure(_ body: () throws -> some Any) -> EncodingFailureReason? {
    do {
        _ = try body()
    } catch NALError.encoding(let reason) {
        return reason
    } catch {}
    return nil
}

extension URLRequest {
    var bodyString: String? { httpBody.map { String(decoding: $0, as: UTF8.self) } }
}
