extension NALError: CustomStringConvertible {
    /// A sentence that says what went wrong and where.
    public var description: String {
        switch self {
        case .invalidRequest(let reason): "Invalid request: \(reason)"
        case .encoding(let reason): "Encoding failed: \(reason)"
        }
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
