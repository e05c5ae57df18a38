public import Foundation

extension Client where Service == Endpoint {
    /// Calls one URL without declaring a service type, as Alamofire's `AF.request(url)` does, through the same
    /// machinery as every call: the client's middleware and hooks, validation (success codes by default), timeouts,
    /// and redaction in logs and errors.
    ///
    /// ```swift
    /// let client = Client<Endpoint>()
    /// let zen = try await client.request("https://api.github.com/zen").string()
    /// let user = try await client.request("https://api.github.com/users/octocat", as: User.self)
    /// ```
    ///
    /// A `Client<Endpoint>` also calls any service's targets, each wrapped as `Endpoint(GitHub.zen)` (Moya's
    /// `MultiTarget`).
    ///
    /// - Parameters:
    ///   - url: an absolute http or https URL; its query is kept, and `requestType`'s URL parameters follow it.
    ///   - method: the HTTP method; GET by default.
    ///   - requestType: parameters, body, upload or download; none by default.
    ///   - headers: header fields to send.
    ///   - validation: which status codes succeed; any other throws `NALError.unacceptableStatusCode`.
    ///   - options: timeouts and the in-memory limit for this call.
    /// - Throws: `NALError.invalidRequest` for text that is not an absolute http or https URL (`.invalidURL`,
    ///   `.unsupportedScheme`, `.baseURLMissingScheme`, `.baseURLMissingHost`), and every error a call can end with.
    public func request(
        _ url: String, method: HTTPMethod = .get, requestType: RequestType = .plain, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes, options: RequestOptions = RequestOptions()
    ) async throws(NALError) -> Response {
        let endpoint = try Self.endpoint(
            url, method: method, requestType: requestType, headers: headers, validation: validation)
        return try await request(endpoint, options: options)
    }

    /// Calls one URL, as `request(_:method:requestType:headers:validation:options:)` does, and decodes its body, or
    /// the value at `keyPath` (`"data.items"`).
    public func request<Value: Decodable>(
        _ url: String, method: HTTPMethod = .get, requestType: RequestType = .plain, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes, as type: Value.Type, atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(), options: RequestOptions = RequestOptions()
    ) async throws(NALError) -> Value {
        let endpoint = try Self.endpoint(
            url, method: method, requestType: requestType, headers: headers, validation: validation)
        return try await request(endpoint, as: type, atKeyPath: keyPath, using: decoder, options: options)
    }

    /// The endpoint for `url`, or `invalidURL` naming the text (its description redacts it, as every URL in a message).
    private static func endpoint(
        _ url: String, method: HTTPMethod, requestType: RequestType, headers: [String: String]?,
        validation: RequestValidation
    ) throws(NALError) -> Endpoint {
        guard let parsed = URL(string: url) else {
            throw .invalidRequest(.invalidURL(url))
        }
        // Refused here, before middleware and stubs see it, as the transports would refuse it.
        guard let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRequest(.unsupportedScheme(parsed.scheme ?? ""))
        }
        return Endpoint(url: parsed, method: method, requestType: requestType, headers: headers, validation: validation)
    }
}
