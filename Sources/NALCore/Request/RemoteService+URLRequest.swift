import NALLogging
import NALSupport

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension RemoteService {
    /// Turns this endpoint into a `URLRequest`. This is the one place where that happens.
    ///
    /// The path is joined to `baseURL`, URL parameters are written into the query, headers are validated and set,
    /// and the body is encoded according to `requestType`. Upload and download bodies are not set here: the
    /// transport streams them. Every failure is an `NALError` that names the part that is wrong.
    public func urlRequest() throws(NALError) -> URLRequest {
        // Not `preparedRequest().request`: working out the kind it would drop copies the request type's payload.
        try request(for: requestType)
    }

    /// The request and how it travels, from one evaluation of `requestType` (which may build its parameters anew
    /// on every read).
    func preparedRequest() throws(NALError) -> (request: URLRequest, kind: RequestKind) {
        let requestType = requestType
        return (try request(for: requestType), requestType.kind)
    }

    /// The request for this endpoint with `requestType`, the value of that property read once.
    private func request(for requestType: RequestType) throws(NALError) -> URLRequest {
        let method = method
        // GET is most requests, and its token is known to be valid.
        guard method == .get || HTTPToken.isValid(method.rawValue) else {
            throw .invalidRequest(.invalidMethod(method.rawValue))
        }
        let timeout = timeout
        try RequestOptions.validate(timeout, setting: "endpoint timeout")
        try RequestOptions.validate(totalTimeout, setting: "endpoint totalTimeout")

        let (url, parametersInURL) = try URLBuilder.withJoined(baseURL: baseURL, path: path) {
            (url) throws(NALError) in try requestType.appendURLParameters(to: &url, method: method)
        }
        var request = URLRequest(url: url)
        // A new URLRequest is already GET; setting it anyway costs a copy of Foundation's backing object.
        if method != .get { request.httpMethod = method.rawValue }
        if let timeout { request.timeoutInterval = timeout }
        if let cachePolicy { request.cachePolicy = cachePolicy }
        var hasHeaders = false
        if let headers, !headers.isEmpty {
            try HeaderChecks.checkDistinctNames(headers.keys)
            for (name, value) in headers {
                try request.setValidatedHeader(value, forName: name)
            }
            hasHeaders = true
        }
        if !parametersInURL {
            try requestType.applyBody(to: &request, method: method, hasHeaders: hasHeaders)
        }
        CoreLog.request.debug(
            """
            prepared \(method.rawValue, privacy: .public) \
            \(DisplayText.url(request.url), privacy: .public) \
            for \(String(describing: Self.self), privacy: .public), body \(request.httpBody?.count ?? 0) bytes
            """)
        return request
    }
}

extension RequestType {
    /// Writes the parameters that belong in the URL into `url`, so that the URL is parsed only once.
    /// Returns `true` when that was all of the request's parameters.
    fileprivate func appendURLParameters(to url: inout URLBuilder, method: HTTPMethod) throws(NALError) -> Bool {
        switch self {
        case .parameters(let parameters, let encoding), .downloadParameters(let parameters, let encoding, _):
            guard let urlEncoding = encoding.exactly(URLEncoding.self),
                urlEncoding.destination.encodesParametersInURL(for: method)
            else { return false }
            try url.appendQuery(parameters, encoding: urlEncoding)
            return true
        case .parameterList(let list, let encoding):
            guard encoding.destination.encodesParametersInURL(for: method) else { return false }
            try url.appendQuery(list, encoding: encoding)
            return true
        case .compositeData(_, let urlParameters), .compositeParameters(_, _, let urlParameters),
            .uploadCompositeMultipart(_, let urlParameters):
            try url.appendQuery(urlParameters, encoding: .queryString)
            return false
        case .encodableQuery(let value, let encoder):
            url.appendEncodedQuery(try encoder.encodedBytes(value))
            return true
        case .plain, .data, .jsonEncodable, .customJSONEncodable, .formEncodable, .uploadData, .uploadFile,
            .uploadMultipart, .download:
            return false
        }
    }

    /// Sets the body, and the headers that describe it, on a request whose URL is final. `hasHeaders` says whether
    /// the endpoint set any header, so that a request without headers skips the Content-Type lookup.
    fileprivate func applyBody(to request: inout URLRequest, method: HTTPMethod, hasHeaders: Bool) throws(NALError) {
        switch self {
        case .plain, .encodableQuery, .uploadData, .uploadFile, .download:
            return
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            // The boundary is chosen here, where headers are; the transport encodes the body with it.
            let current = hasHeaders ? request.value(forHTTPHeaderField: "Content-Type") : nil
            if current.flatMap(MultipartEncoder.boundary(inContentType:)) == nil {
                request.setValue(MultipartEncoder(parts: parts).contentType, forHTTPHeaderField: "Content-Type")
            }
        case .data(let data), .compositeData(let data, _):
            request.httpBody = data
        case .jsonEncodable(let value):
            request.httpBody = try JSONBody.encode(value, with: JSONBody.sharedEncoder)
            request.setContentType("application/json", onlyIfMissing: hasHeaders)
        case .customJSONEncodable(let value, let encoder):
            request.httpBody = try JSONBody.encode(value, with: encoder)
            request.setContentType("application/json", onlyIfMissing: hasHeaders)
        case .formEncodable(let value, let encoder):
            request.httpBody = Data(try encoder.encodedBytes(value))
            request.setContentType(URLEncoding.formContentType, onlyIfMissing: hasHeaders)
        case .parameters(let parameters, let encoding), .downloadParameters(let parameters, let encoding, _):
            try Self.applyParameters(parameters, encoding: encoding, to: &request, hasHeaders: hasHeaders)
        case .parameterList(let list, let encoding):
            request.setFormBody(try encoding.queryBytes(list), onlyIfMissing: hasHeaders)
        case .compositeParameters(let bodyParameters, let bodyEncoding, _):
            if let urlEncoding = bodyEncoding.exactly(URLEncoding.self),
                urlEncoding.destination.encodesParametersInURL(for: method)
            {
                throw .invalidRequest(.bodyEncodingTargetsQuery)
            }
            try Self.applyParameters(bodyParameters, encoding: bodyEncoding, to: &request, hasHeaders: hasHeaders)
        }
    }

    /// NAL's own encodings write the body in place; any other `ParameterEncoding` gets the request, and what it
    /// returns is checked for framing headers.
    private static func applyParameters(
        _ parameters: Parameters, encoding: any ParameterEncoding, to request: inout URLRequest, hasHeaders: Bool
    ) throws(NALError) {
        if let json = encoding.exactly(JSONEncoding.self) {
            request.httpBody = try json.data(parameters)
            request.setContentType("application/json", onlyIfMissing: hasHeaders)
        } else if let form = encoding.exactly(URLEncoding.self) {
            request.setFormBody(try form.queryBytes(parameters), onlyIfMissing: hasHeaders)
        } else {
            request = try encoding.encodeWrappingErrors(request, with: parameters)
            try HeaderChecks.checkNoFramingHeaders(in: request)
        }
    }
}

extension ParameterEncoding {
    /// This encoding as `Encoding` when that is exactly its type; for NAL's own encodings, which are structs. It
    /// answers as `as?` does (unlike `as?`, it does not look inside an `Optional` a user made an encoding), without
    /// the runtime's dynamic cast on every request.
    @inline(__always)
    fileprivate func exactly<Encoding: ParameterEncoding>(_: Encoding.Type) -> Encoding? {
        guard Self.self == Encoding.self else { return nil }
        return withUnsafePointer(to: self) { UnsafeRawPointer($0).load(as: Encoding.self) }
    }

    /// Calls `encode`, passing `NALError` through and wrapping anything else so that callers see one error type.
    fileprivate func encodeWrappingErrors(
        _ request: URLRequest, with parameters: Parameters
    ) throws(NALError)
        -> URLRequest
    {
        do {
            return try encode(request, with: parameters)
        } catch let error as NALError {
            throw error
        } catch {
            throw .encoding(.parameterEncodingFailed(encoding: String(describing: Self.self), underlying: error))
        }
    }
}

extension URLRequest {
    /// Sets a form body and its Content-Type, unless the endpoint set one (`hasHeaders` says whether it set any).
    fileprivate mutating func setFormBody(_ bytes: [UInt8], onlyIfMissing hasHeaders: Bool) {
        httpBody = Data(bytes)
        setContentType(URLEncoding.formContentType, onlyIfMissing: hasHeaders)
    }
}
