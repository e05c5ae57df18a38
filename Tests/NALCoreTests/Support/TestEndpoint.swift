import Foundation
import NALCore
@_exported import NALTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
