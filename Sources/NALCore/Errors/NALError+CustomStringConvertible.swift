package import Foundation

extension NALError: CustomStringConvertible {
    /// A sentence that says what went wrong, where, and what to try. URLs have their secrets redacted and are cut
    /// to about 2 KB.
    public var description: String {
        switch self {
        case .invalidRequest(let reason): "Invalid request: \(reason)"
        case .encoding(let reason): "Encoding failed: \(reason)"
        case .transport(let error):
            "Transport failed with URLError code \(error.code.rawValue) for \(DisplayText.url(error.failingURL)): "
                + "\(DisplayText.text(error.localizedDescription)). \(Self.advice(for: error.code))"
        case .tls(let failure):
            failure.description
        case .transportUnavailable(let reason):
            "The transport cannot work on this machine: \(DisplayText.capped(reason))."
        case .unacceptableStatusCode(let response):
            "Unacceptable status code \(response.statusCode) from \(response.request.httpMethod ?? "GET") "
                + "\(DisplayText.url(response.request.url)); the endpoint's validation does not accept it."
        case .decoding(let failure):
            "Decoding \(failure.type)\(failure.keyPath.map { " at key path '\(DisplayText.capped($0))'" } ?? "") "
                + "\(failure.line.map { "from line \($0) " } ?? "")failed for the response from \(DisplayText.url(failure.response.request.url)) "
                + "(status \(failure.response.statusCode), \(failure.response.data.count) bytes): "
                + "\(DisplayText.capped("\(failure.underlying)"))."
        case .cancelled:
            "The request was cancelled."
        case .streamAlreadyBeingRead:
            "The stream is already being read by another task; read a stream from one loop at a time."
        case .timedOut(let failure):
            Self.describe(failure)
        case .hookFailed(let underlying):
            "A request hook failed: \(DisplayText.text("\(underlying)"))."
        case .middlewareFailed(let middleware, let underlying):
            "The middleware \(middleware) failed: \(DisplayText.text("\(underlying)"))."
        case .tokenRefreshFailed(let underlying, let response):
            "Refreshing the access token failed: \(DisplayText.text("\(underlying)"))"
                + (response.map { "; the request to \(DisplayText.url($0.request.url)) had answered \($0.statusCode)" }
                    ?? "") + ". Check the refresh endpoint and the stored refresh credentials."
        case .responseTooLarge(let limit, let url):
            "The response from \(DisplayText.url(url)) exceeded the in-memory limit of \(limit) bytes; raise "
                + "maximumResponseSize or download to a file."
        case .file(let failure):
            "File failed: \(failure)"
        }
    }

    private static func describe(_ failure: TimeoutFailure) -> String {
        let seconds = DisplayText.seconds(failure.seconds)
        switch failure.limit {
        case .idle:
            return "The request to \(DisplayText.url(failure.url)) timed out: nothing was sent or received for "
                + "\(seconds) (the idle timeout). Raise the endpoint's timeout or RequestOptions.timeout, or check the "
                + "server."
        case .total:
            return "The request to \(DisplayText.url(failure.url)) timed out: it did not complete within \(seconds) "
                + "(the total timeout). Raise the endpoint's totalTimeout or RequestOptions.totalTimeout, or check the "
                + "server."
        }
    }

    /// Advice that fits the group a `URLError` code belongs to.
    static func advice(for code: URLError.Code) -> String {
        switch code {
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet,
            .internationalRoamingOff, .callIsActive, .dataNotAllowed, .cannotLoadFromNetwork:
            return "Check that the host is reachable and listening on that port."
        case .networkConnectionLost:
            return "The connection closed before the whole response arrived; the server may have crashed, restarted "
                + "or timed out. Retrying an idempotent request may help."
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
            .zeroByteResource, .dataLengthExceedsMaximum:
            return "The response does not follow HTTP (framing, chunking or content encoding); check the server or a "
                + "proxy in between."
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            return "The redirects loop or lead nowhere; check the Location headers the server sends."
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            return "The TLS handshake failed; check the server's certificate, its chain and the TLS versions."
        case .timedOut:
            return "Raise the timeout or check the server."
        case .badURL, .unsupportedURL:
            return "Check the URL."
        case .cannotOpenFile, .fileDoesNotExist, .noPermissionsToReadFile, .cannotCreateFile, .cannotWriteToFile:
            return "Check the file's path and permissions."
        default:
            return "See the underlying error for details."
        }
    }
}

extension InvalidRequestReason: CustomStringConvertible {
    /// A sentence that names the part of the request that is wrong.
    public var description: String {
        switch self {
        case .baseURLMissingScheme(let url):
            "the base URL '\(DisplayText.url(url))' has no scheme; write it as 'https://host/...'."
        case .baseURLMissingHost(let url):
            "the base URL '\(DisplayText.url(url))' has no host; write it as 'https://host/...'."
        case .invalidPath(let path, let problem):
            "the path '\(DisplayText.capped(path.debugEscaped))' \(problem)."
        case .invalidURL(let url):
            "'\(DisplayText.url(url.debugEscaped))' is not a valid URL."
        case .invalidHeaderName(let name):
            "the header name '\(DisplayText.capped(name.debugEscaped))' is empty or contains a character outside "
                + "RFC 9110 token characters."
        case .invalidHeaderValue(let name, let problem):
            "the value of header '\(DisplayText.capped(name))' \(problem); control characters other than tab are "
                + "refused (RFC 9110), and CR, LF and NUL would allow request smuggling."
        case .framingHeader(let name):
            "the header '\(name)' is set by NAL and URLSession from the body and the URL; remove it. A wrong value "
                + "would let a server read part of the body as a second request (request smuggling)."
        case .reservedHeader(let name):
            "the header '\(DisplayText.capped(name))' is NAL's own, between its transport and its stub server; remove "
                + "it."
        case .duplicateHeader(let name, let otherName):
            "the headers '\(DisplayText.capped(name))' and '\(DisplayText.capped(otherName))' differ only in letter "
                + "case; header names are case-insensitive, so keep one."
        case .invalidTimeout(let setting, let value):
            "the \(setting) is \(value); a timeout must be a finite number of seconds greater than 0 and at most "
                + "\(Int(RequestOptions.maximumTimeout)) (7 days)."
        case .invalidSizeLimit(let setting, let value):
            "the \(setting) is \(value); a size limit must be a number of bytes, 0 or more."
        case .unsupportedScheme(let scheme):
            "the scheme '\(DisplayText.capped(scheme.debugEscaped))' cannot be sent; URLSessionTransport sends http "
                + "and https."
        case .invalidMethod(let method):
            "the HTTP method '\(DisplayText.capped(method.debugEscaped))' is empty or contains a character outside "
                + "RFC 9110 token characters."
        case .missingURL:
            "the request has no URL to encode parameters into."
        case .bodyEncodingTargetsQuery:
            "the body encoding of compositeParameters writes to the URL query; pass those values as urlParameters."
        case .unsupportedRequestType(let name):
            "the transport cannot send \(name) requests yet."
        }
    }
}

extension EncodingFailureReason: CustomStringConvertible {
    /// A sentence that names the value that could not be encoded and where it is.
    public var description: String {
        switch self {
        case .nonFiniteNumber(let keyPath):
            "the number at '\(DisplayText.capped(keyPath))' is NaN or infinite, which JSON and query strings cannot "
                + "represent."
        case .emptyKey(let keyPath):
            keyPath.isEmpty
                ? "a top-level parameter has an empty key."
                : "the container at '\(DisplayText.capped(keyPath))' has an empty key."
        case .nestingTooDeep(let keyPath, let limit):
            "the parameters are nested more than \(limit) containers deep, at '\(DisplayText.capped(keyPath))'."
        case .encodableFailed(let type, let underlying):
            "encoding a value of type \(type) threw: \(DisplayText.capped("\(underlying)"))."
        case .topLevelNotKeyed(let type):
            "a value of type \(type) must encode as a keyed container (a struct or dictionary) to become form fields."
        case .parameterEncodingFailed(let encoding, let underlying):
            "\(encoding) threw: \(DisplayText.capped("\(underlying)"))."
        }
    }
}

/// How error messages and logs show values that come from input: on one line, secrets redacted, and short.
package enum DisplayText {
    /// About 2 KB: a 10 MB URL must not become a 10 MB message.
    static let limit = 2048

    /// `text` cut to `limit` UTF-8 bytes (on a character boundary) with an ellipsis that says how much was left out.
    package static func capped(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        while end > utf8.startIndex && end.samePosition(in: text.unicodeScalars) == nil {
            end = utf8.index(before: end)
        }
        return String(text[..<end]) + "… (\(utf8.count - utf8.distance(from: utf8.startIndex, to: end)) more bytes)"
    }

    /// Text from elsewhere (libcurl's, Foundation's, another error's) as messages show it: the URLs in it redacted
    /// (a proxy's password from the environment reaches libcurl's messages), then capped.
    package static func text(_ text: String) -> String {
        capped(SensitiveData.current.redacting(message: text))
    }

    /// A URL as messages show it: password and sensitive query values redacted, then capped.
    package static func url(_ url: URL?) -> String {
        url.map { Self.url($0.absoluteString) } ?? "an unknown URL"
    }

    /// A URL string as messages show it.
    package static func url(_ text: String) -> String {
        capped(SensitiveData.current.redacting(url: text))
    }

    /// `0.5 s`, `2 s`.
    static func seconds(_ value: Double) -> String {
        (value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)) + " s"
    }
}

extension String {
    /// The string with control characters made visible, so error messages stay on one line.
    var debugEscaped: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
