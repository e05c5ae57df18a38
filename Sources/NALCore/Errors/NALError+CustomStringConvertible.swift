import Foundation

extension NALError: CustomStringConvertible {
    /// A sentence that says what went wrong and where.
    public var description: String {
        switch self {
        case .invalidRequest(let reason): "Invalid request: \(reason)"
        case .encoding(let reason): "Encoding failed: \(reason)"
        case .transport(let error):
            "Transport failed with URLError code \(error.code.rawValue) for \(Self.urlText(error)): "
                + "\(error.localizedDescription). Check that the host is reachable."
        case .unacceptableStatusCode(let response):
            "Unacceptable status code \(response.statusCode) from \(response.request.httpMethod ?? "GET") "
                + "\(Self.redacted(response.request.url)); the endpoint's validation does not accept it."
        case .decoding(let failure):
            "Decoding \(failure.type)\(failure.keyPath.map { " at key path '\($0)'" } ?? "") failed for the response "
                + "from \(Self.redacted(failure.response.request.url)) (status \(failure.response.statusCode), "
                + "\(failure.response.data.count) bytes): \(failure.underlying)."
        case .cancelled:
            "The request was cancelled."
        case .timedOut(let error):
            "The request to \(Self.urlText(error)) timed out; raise the endpoint's timeout or check the server."
        case .hookFailed(let underlying):
            "A request hook failed: \(underlying)."
        case .responseTooLarge(let limit, let url):
            "The response from \(Self.redacted(url)) exceeded the in-memory limit of \(limit) bytes; raise "
                + "maximumResponseSize or download to a file."
        }
    }

    private static func redacted(_ url: URL?) -> String {
        url.map { SensitiveHeaders.redactingQuery(of: $0.absoluteString) } ?? "an unknown URL"
    }

    private static func urlText(_ error: URLError) -> String {
        redacted(error.failingURL)
    }
}

extension InvalidRequestReason: CustomStringConvertible {
    /// A sentence that names the part of the request that is wrong.
    public var description: String {
        switch self {
        case .baseURLMissingScheme(let url):
            "the base URL '\(url)' has no scheme; write it as 'https://host/...'."
        case .baseURLMissingHost(let url):
            "the base URL '\(url)' has no host; write it as 'https://host/...'."
        case .invalidPath(let path, let problem):
            "the path '\(path.debugEscaped)' \(problem)."
        case .invalidURL(let url):
            "'\(url.debugEscaped)' is not a valid URL."
        case .invalidHeaderName(let name):
            "the header name '\(name.debugEscaped)' is empty or contains a character outside RFC 9110 token characters."
        case .invalidHeaderValue(let name, let problem):
            "the value of header '\(name)' \(problem); CR, LF and NUL are rejected to prevent request smuggling."
        case .invalidMethod(let method):
            "the HTTP method '\(method.debugEscaped)' is empty or contains a character outside RFC 9110 token characters."
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
            "the number at '\(keyPath)' is NaN or infinite, which JSON and query strings cannot represent."
        case .emptyKey(let keyPath):
            keyPath.isEmpty
                ? "a top-level parameter has an empty key."
                : "the dictionary at '\(keyPath)' has an empty key."
        case .encodableFailed(let type, let underlying):
            "encoding a value of type \(type) threw: \(underlying)."
        case .topLevelNotKeyed(let type):
            "a value of type \(type) must encode as a keyed container (a struct or dictionary) to become form fields."
        case .parameterEncodingFailed(let encoding, let underlying):
            "\(encoding) threw: \(underlying)."
        }
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
