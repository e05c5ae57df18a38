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

/// Properties of HTTPCache's parsers: the fields a response's freshness and a request's range are read from, and the
/// entry files of a cache folder.
extension MiddlewareFuzzChecks {
    /// `Cache-Control`, `Age`, HTTP-dates and `Range`: numbers within their bounds, dates within 1...9999, a range
    /// inside the body.
    package static func cacheFields(_ data: Data) throws(FuzzFailure) {
        let text = String(decoding: data, as: UTF8.self)
        let directives = CacheDirectives([text])
        for name in ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error", "max-stale", "min-fresh"] {
            if let seconds = directives.seconds(name) {
                try FuzzFailure.check((0...CacheDirectives.largestSeconds).contains(seconds), "\(name)=\(seconds)")
            }
        }
        let age = CacheFreshness.ageSeconds(text)
        try FuzzFailure.check((0...CacheDirectives.largestSeconds).contains(age), "an Age of \(age)")
        if let date = HTTPDate.parse(text) {
            let seconds = date.timeIntervalSince1970
            try FuzzFailure.check(seconds > -62_200_000_000 && seconds < 253_403_000_000, "a date outside 1...9999")
        }
        for length in [0, 1, 11, Int.max] {
            if let offsets = CacheRange.offsets(text, length: length) {
                try FuzzFailure.check(
                    offsets.lowerBound >= 0 && offsets.upperBound < length,
                    "\(offsets) out of a \(length)-byte body for \(text.debugDescription)")
            }
        }
    }

    /// A cache folder's entry file: any bytes are refused or read, never a trap; an entry made from the input reads
    /// back as itself.
    package static func cacheEntry(_ data: Data) throws(FuzzFailure) {
        let bytes = Array(data)
        if let roundTrips = CacheEntryFile.decodesAndRoundTrips(bytes, keyDigest: "k") {
            try FuzzFailure.check(roundTrips, "an entry that does not encode back to its bytes")
        }
        var input = FuzzInput(bytes)
        var fields: [(name: String, value: String)] = []
        for _ in 0..<input.choice(5) { fields.append((input.string(maximum: 40), input.string(maximum: 200))) }
        let varying = (0..<input.choice(3)).map { _ in
            (name: input.string(maximum: 20), value: input.bool() ? input.string(maximum: 40) : nil)
        }
        let encoded = CacheEntryFile.encode(fields: fields, varying: varying, body: Data(input.rest), keyDigest: "k")
        try FuzzFailure.check(
            CacheEntryFile.decodesAndRoundTrips(encoded, keyDigest: "k") == true, "an entry that does not read back")
        try FuzzFailure.check(
            CacheEntryFile.decodesAndRoundTrips(encoded, keyDigest: "other") == nil, "an entry read under another key")
        if !encoded.isEmpty {
            var torn = encoded
            torn.removeLast()
            try FuzzFailure.check(
                CacheEntryFile.decodesAndRoundTrips(torn, keyDigest: "k") == nil, "a torn entry read as intact")
        }
    }
}
