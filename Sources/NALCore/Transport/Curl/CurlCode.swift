#if os(Linux)
    import CCurl
    import Foundation

    /// What a libcurl result code means for a caller: the `URLError` that URLSession reports for the same failure, so
    /// that code written against either transport handles both.
    enum CurlCode {
        /// `CURLE_NOT_BUILT_IN`: an option this libcurl was built without.
        static let notBuiltIn: Int32 = 4
        /// `CURLE_UNKNOWN_OPTION`: an option newer than this libcurl.
        static let unknownOption: Int32 = 48
        /// `CURLE_FAILED_INIT`: libcurl could not take the transfer.
        static let failedInit: Int32 = 2
        /// `CURLE_WEIRD_SERVER_REPLY`: no response head NAL can read.
        static let weirdServerReply: Int32 = 8
        /// `CURLE_READ_ERROR`: the request body could not be read.
        static let readError: Int32 = 26
        /// `CURLE_OUT_OF_MEMORY`.
        static let outOfMemory: Int32 = 27

        /// The error for `code`; `detail` is libcurl's error buffer for the transfer, which tells apart what one
        /// code covers (bad chunking and a closed connection are both a receive error). libcurl quotes URLs there,
        /// a proxy's from the environment with its password: they are redacted.
        static func urlError(_ code: Int32, url: URL?, detail: String = "") -> URLError {
            let detail = SensitiveData.current.redacting(message: detail)
            let description = detail.isEmpty ? message(code) : "\(detail) (libcurl error \(code))"
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            var urlCode = errorCode(code)
            if !detail.isEmpty, urlCode == .networkConnectionLost || urlCode == .unknown {
                let fromDetail = SessionDelegate.code(ofLibcurlMessage: detail)
                if fromDetail != .unknown { urlCode = fromDetail }
            }
            return URLError(urlCode, userInfo: userInfo)
        }

        /// libcurl's own sentence for `code`.
        static func message(_ code: Int32) -> String {
            guard let text = nal_curl_easy_strerror(code) else { return "libcurl error \(code)" }
            return "\(String(cString: text)) (libcurl error \(code))"
        }

        private static func errorCode(_ code: Int32) -> URLError.Code {
            switch code {
            case 1: .unsupportedURL
            case 3: .badURL
            case 5, 6: .cannotFindHost
            case 7: .cannotConnectToHost
            case 8: .badServerResponse
            case 16, 18, 25, 52, 55, 56, 65, 81, 92: .networkConnectionLost
            case 27: .cannotLoadFromNetwork
            case 28: .timedOut
            case 35, 53, 54, 58, 59, 64, 66, 80, 83, 90, 91: .secureConnectionFailed
            case 60, 77: .serverCertificateUntrusted
            case 61: .cannotDecodeContentData
            case 42: .cancelled
            case 47: .httpTooManyRedirects
            default: .unknown
            }
        }
    }
#endif
