import NALSupport

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension URLRequest {
    /// Sets a header after checking it: the name must be an HTTP token and not a framing header
    /// (`Content-Length`, `Transfer-Encoding`, `Host`, `Connection`, `Upgrade`), and the value must hold no control
    /// character but tab.
    ///
    /// Use this instead of `setValue(_:forHTTPHeaderField:)` wherever a header comes from input: it throws
    /// `NALError.invalidRequest` rather than letting a value split the request. (`URLSessionTransport` checks every
    /// header again before sending, so a header set without this check still cannot go out.)
    public mutating func setValidatedHeader(_ value: String, forName name: String) throws(NALError) {
        try HeaderChecks.check(name: name, value: value)
        setValue(value, forHTTPHeaderField: name)
    }

    /// Sets `Content-Type`; with `onlyIfMissing`, only when the request has none (in any letter case).
    mutating func setContentType(_ contentType: String, onlyIfMissing: Bool) {
        if !onlyIfMissing || value(forHTTPHeaderField: "Content-Type") == nil {
            setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
    }

    /// Sets `Content-Type` unless the request already has one (in any letter case).
    mutating func setContentTypeIfMissing(_ contentType: String) {
        setContentType(contentType, onlyIfMissing: true)
    }
}

/// The header rules every request meets, in preparation and again in `URLSessionTransport` before sending.
enum HeaderChecks {
    static func check(name: String, value: String) throws(NALError) {
        guard HTTPToken.isValid(name) else { throw .invalidRequest(.invalidHeaderName(name)) }
        if let framing = HTTPToken.framingHeader(name) { throw .invalidRequest(.framingHeader(name: framing)) }
        if StubSessionSeam.isMarker(name) { throw .invalidRequest(.reservedHeader(name: name)) }
        if let problem = HTTPToken.problem(inValue: value) {
            throw .invalidRequest(.invalidHeaderValue(name: name, problem: problem))
        }
    }

    /// Names that differ only in letter case are refused: which value wins would depend on dictionary order.
    static func checkDistinctNames(_ names: some Collection<String>) throws(NALError) {
        guard names.count > 1 else { return }
        let sorted = names.sorted()
        for (offset, name) in sorted.enumerated() {
            for other in sorted[(offset + 1)...] where HTTPToken.equalsIgnoringASCIICase(name, other) {
                throw .invalidRequest(.duplicateHeader(name: name, otherName: other))
            }
        }
    }

    static func checkNoFramingHeaders(in request: URLRequest) throws(NALError) {
        guard let fields = request.allHTTPHeaderFields else { return }
        for name in fields.keys.sorted() {
            if let framing = HTTPToken.framingHeader(name) { throw .invalidRequest(.framingHeader(name: framing)) }
        }
    }

    /// Every header of a request about to be sent: names, values and framing headers.
    static func checkAll(in request: URLRequest) throws(NALError) {
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            try check(name: name, value: value)
        }
    }
}
