package import Foundation
import NALCore
import NALMiddleware
import NALSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Properties of NALMiddleware's parsers over arbitrary input, for the fuzz targets in `Fuzz/`.
package enum MiddlewareFuzzChecks {
    /// `Retry-After`: any value gives a wait from 0 to the saturation bound, or none; dates have years 1 to 9999.
    package static func retryAfter(_ data: Data) throws(FuzzFailure) {
        let text = String(decoding: data, as: UTF8.self)
        if let date = RetryAfter.httpDate(text) {
            let seconds = date.timeIntervalSince1970
            try FuzzFailure.check(seconds > -62_200_000_000 && seconds < 253_403_000_000, "a date outside 1...9999")
        }
        guard let url = URL(string: "https://h.example/x"),
            let http = HTTPURLResponse(
                url: url, statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": text])
        else { return }
        let response = Response(
            request: URLRequest(url: url), httpResponse: http, data: Data(),
            timing: ResponseTiming(start: Date(), duration: .zero))
        if let wait = RetryAfter.delay(in: response) {
            try FuzzFailure.check(
                wait >= .zero && wait <= .seconds(RetryAfter.maximumSeconds),
                "a wait of \(wait) for \(text.debugDescription)")
        }
    }
}
