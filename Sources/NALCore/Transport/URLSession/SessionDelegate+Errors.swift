import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension SessionDelegate {
    /// Foundation's error as an `NALError`. libcurl's failures after the headers arrived reach Foundation as
    /// `URLError.unknown` (-1) with only libcurl's message; they get the code of what happened, with the original
    /// kept as the underlying error, so that messages give the right advice and retries see a lost connection.
    static func nalError(_ error: any Error, state: State) -> NALError {
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: error]
        if let url = state.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        guard var urlError = error as? URLError else { return .transport(URLError(.unknown, userInfo: userInfo)) }
        // FoundationNetworking passes libcurl's message on, which quotes a proxy from the environment as given.
        let message = urlError.localizedDescription
        let redacted = SensitiveData.current.redacting(message: message)
        if redacted != message {
            var kept: [String: Any] = [NSLocalizedDescriptionKey: redacted]
            if let url = urlError.failingURL ?? state.url { kept[NSURLErrorFailingURLErrorKey] = url }
            urlError = URLError(urlError.code, userInfo: kept)
            userInfo[NSUnderlyingErrorKey] = urlError
        }
        switch urlError.code {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return .timedOut(TimeoutFailure(limit: .idle, seconds: state.idleTimeout, url: state.url))
        case .unknown where state.headTooLarge(message: urlError.localizedDescription):
            return ResponseHeadLimit.failure(url: state.url)
        case .unknown:
            userInfo[NSLocalizedDescriptionKey] = urlError.localizedDescription
            return .transport(URLError(code(ofLibcurlMessage: urlError.localizedDescription), userInfo: userInfo))
        default:
            return .transport(urlError)
        }
    }

    /// libcurl inflates gzip inside FoundationNetworking and does not report a stream that ends early when the
    /// framing is consistent, and NAL never sees the compressed bytes. What it can tell is a gzip body shorter than
    /// the smallest complete gzip stream (a 10-byte header, 2 bytes of deflate, an 8-byte trailer).
    static func truncatedGzip(_ response: HTTPURLResponse, url: URL?) -> NALError? {
        truncatedGzip(
            contentEncoding: response.value(forHTTPHeaderField: "Content-Encoding"),
            contentLength: response.value(forHTTPHeaderField: "Content-Length"), url: url)
    }

    /// The same, from the two fields' values.
    static func truncatedGzip(contentEncoding: String?, contentLength: String?, url: URL?) -> NALError? {
        guard contentEncoding?.lowercased().contains("gzip") == true,
            let length = contentLength.flatMap(Self.length(of:)),
            (1..<20).contains(length)
        else { return nil }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "the gzip body is \(length) bytes, shorter than any complete gzip stream (20 bytes): it was cut short"
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.cannotDecodeContentData, userInfo: userInfo))
    }

    /// A `Content-Length` value as a number, also when the field came more than once with the same number and was
    /// merged into a list ("6, 6", which RFC 9110 §8.6 lets a recipient accept); `nil` for anything else.
    static func length(of contentLength: String) -> Int? {
        var check = ContentLengthCheck()
        check.read(contentLength)
        return check.length
    }

    /// The `URLError` code for one of libcurl's messages (CURLE_PARTIAL_FILE, CURLE_RECV_ERROR on bad chunking,
    /// CURLE_BAD_CONTENT_ENCODING), or `.unknown`.
    static func code(ofLibcurlMessage message: String) -> URLError.Code {
        let lowered = message.lowercased()
        if lowered.contains("unencoding") || lowered.contains("content encoding") || lowered.contains("decompress") {
            return .cannotDecodeContentData
        }
        if lowered.contains("transfer closed") || lowered.contains("connection reset") {
            return .networkConnectionLost
        }
        if lowered.contains("chunk") || lowered.contains("invalid status line")
            || lowered.contains("weird server reply")
            || lowered.contains("header")
        {
            return .cannotParseResponse
        }
        return .unknown
    }
}
