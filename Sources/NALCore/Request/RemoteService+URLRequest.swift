import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

enum CoreLog {
    static let request = Logger(nal: .request)
    static let requestOperation = Logger(nal: .requestOperation)
}

extension RemoteService {
    /// Turns this endpoint into a `URLRequest`. This is the one place where that happens.
    ///
    /// The path is joined to `baseURL`, URL parameters are written into the query, headers are validated and set,
    /// and the body is encoded according to `requestType`. Upload and download bodies are not set here: the
    /// transport streams them. Every failure is an `NALError` that names the part that is wrong.
    public func urlRequest() throws(NALError) -> URLRequest {
        try preparedRequest().request
    }

    /// The request and how it travels, from one evaluation of `requestType` (which may build its parameters anew
    /// on every read).
    func preparedRequest() throws(NALError) -> (request: URLRequest, kind: RequestKind) {
        let method = method
        guard HTTPToken.isValid(method.rawValue) else { throw .invalidRequest(.invalidMethod(method.rawValue)) }
        let requestType = requestType

        var url = try URLBuilder(baseURL: baseURL, path: path)
        let parametersInURL = try requestType.appendURLParameters(to: &url, method: method)
        var request = URLRequest(url: try url.makeURL())
        // A new URLRequest is already GET; setting it anyway costs a copy of Foundation's backing object.
        if method != .get { request.httpMethod = method.rawValue }
        if let timeout { request.timeoutInterval = timeout }
        if let cachePolicy { request.cachePolicy = cachePolicy }
        if let headers {
            for (name, value) in headers {
                try request.setValidatedHeader(value, forName: name)
            }
        }
        if !parametersInURL {
            try requestType.applyBody(to: &request, method: method)
        }
        CoreLog.request.debug(
            """
            prepared \(method.rawValue, privacy: .public) \
            \(SensitiveHeaders.redactingQuery(of: request.url?.absoluteString ?? ""), privacy: .public) \
            for \(String(describing: Self.self), privacy: .public), body \(request.httpBody?.count ?? 0) bytes
            """)
        return (request, requestType.kind)
    }
}

extension RequestType {
    /// Writes the parameters that belong in the URL into `url`, so that the URL is parsed only once.
    /// Returns `true` when that was all of the request's parameters.
    fileprivate func appendURLParameters(to url: inout URLBuilder, method: HTTPMethod) throws(NALError) -> Bool {
        switch self {
        case .parameters(let parameters, let encoding), .downloadParameters(let parameters, let encoding, _):
            guard let urlEncoding = encoding as? URLEncoding,
                urlEncoding.destination.encodesParametersInURL(for: method)
            else { return false }
            try url.appendQuery(parameters, encoding: urlEncoding)
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

    /// Sets the body, and the headers that describe it, on a request whose URL is final.
    fileprivate func applyBody(to request: inout URLRequest, method: HTTPMethod) throws(NALError) {
        switch self {
        case .plain, .encodableQuery, .uploadData, .uploadFile, .uploadMultipart, .uploadCompositeMultipart,
            .download:
            return
        case .data(let data), .compositeData(let data, _):
            request.httpBody = data
        case .jsonEncodable(let value):
            request.httpBody = try JSONBody.encode(value, with: JSONBody.sharedEncoder)
            request.setContentTypeIfMissing("application/json")
        case .customJSONEncodable(let value, let encoder):
            request.httpBody = try JSONBody.encode(value, with: encoder)
            request.setContentTypeIfMissing("application/json")
        case .formEncodable(let value, let encoder):
            request.httpBody = Data(try encoder.encodedBytes(value))
            request.setContentTypeIfMissing("application/x-www-form-urlencoded; charset=utf-8")
        case .parameters(let parameters, let encoding), .downloadParameters(let parameters, let encoding, _):
            request = try encoding.encodeWrappingErrors(request, with: parameters)
        case .compositeParameters(let bodyParameters, let bodyEncoding, _):
            if let urlEncoding = bodyEncoding as? URLEncoding,
                urlEncoding.destination.encodesParametersInURL(for: method)
            {
                throw .invalidRequest(.bodyEncodingTargetsQuery)
            }
            request = try bodyEncoding.encodeWrappingErrors(request, with: bodyParameters)
        }
    }
}

extension ParameterEncoding {
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
