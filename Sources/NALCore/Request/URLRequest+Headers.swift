#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension URLRequest {
    /// Sets a header after checking that its name is an HTTP token and its value has no CR, LF or NUL.
    ///
    /// Use this instead of `setValue(_:forHTTPHeaderField:)` wherever a header comes from input: it throws
    /// `NALError.invalidRequest` rather than letting a value split the request.
    public mutating func setValidatedHeader(_ value: String, forName name: String) throws(NALError) {
        guard HTTPToken.isValid(name) else { throw .invalidRequest(.invalidHeaderName(name)) }
        if let problem = HTTPToken.problem(inValue: value) {
            throw .invalidRequest(.invalidHeaderValue(name: name, problem: problem))
        }
        setValue(value, forHTTPHeaderField: name)
    }

    /// Sets `Content-Type` unless the request already has one (in any letter case).
    mutating func setContentTypeIfMissing(_ contentType: String) {
        if value(forHTTPHeaderField: "Content-Type") == nil {
            setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
    }
}
