import Foundation
import NALSupport

/// Builds a URL string byte by byte in one buffer and parses it once at the end.
struct URLBuilder: ~Copyable {
    /// `scheme://host/path`, then `?query` once the URL has a query.
    private var bytes: ByteBuffer
    /// Whether `bytes` holds a `?`.
    private var hasQuery: Bool
    /// The base URL's query, held back until the path is in place.
    private var pendingQuery: [UInt8]?
    /// The fragment without `#`, or `nil`.
    private var fragment: [UInt8]?

    /// Starts from an existing URL, keeping its query and fragment.
    init(url: URL) {
        var absolute = url.absoluteString
        var bytes = ByteBuffer(capacity: absolute.utf8.count + 256)
        (hasQuery, pendingQuery, fragment) = absolute.withUTF8 { buffer in
            let parts = BaseURLParts.split(buffer)
            bytes.append(UnsafeBufferPointer(rebasing: buffer[..<parts.mainEnd]))
            if let query = parts.query {
                bytes.append(UInt8(ascii: "?"))
                bytes.append(UnsafeBufferPointer(rebasing: buffer[query]))
            }
            return (parts.query != nil, nil, parts.fragment.map { Array(UnsafeBufferPointer(rebasing: buffer[$0])) })
        }
        self.bytes = bytes
    }

    private init(bytes: consuming ByteBuffer, pendingQuery: [UInt8]?, fragment: [UInt8]?) {
        self.bytes = bytes
        hasQuery = false
        self.pendingQuery = pendingQuery
        self.fragment = fragment
    }

    /// Joins `path` to `baseURL`, lets `complete` add to the URL (its query), and parses the finished URL once.
    ///
    /// The URL is written into 1 KiB of stack, which a longer URL leaves for the heap, so that a typical request's
    /// URL costs one allocation: the `String` that `URL(string:)` parses.
    static func withJoined<Extra>(
        baseURL: URL, path: String, _ complete: (inout URLBuilder) throws(NALError) -> Extra
    ) throws(NALError) -> (url: URL, extra: Extra) {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { (scratch) throws(NALError) in
            var builder = try joining(baseURL: baseURL, path: path, into: ByteBuffer(borrowing: scratch))
            let extra = try complete(&builder)
            return (try builder.makeURL(), extra)
        }
    }

    /// Joins `path` to `baseURL` in `main`: no doubled or lost slashes, the base path and query are kept.
    private static func joining(
        baseURL: URL, path: String, into main: consuming ByteBuffer
    ) throws(NALError) -> URLBuilder {
        // One read of `absoluteString`, scanned as contiguous UTF-8: reading `scheme` and `host` instead costs a
        // parse each on every request.
        var absolute = baseURL.absoluteString
        let split = absolute.withUTF8 { buffer in
            BaseURLParts.of(buffer).map { parts in
                main.append(UnsafeBufferPointer(rebasing: buffer[..<parts.mainEnd]))
                return (
                    parts.query.map { Array(UnsafeBufferPointer(rebasing: buffer[$0])) },
                    parts.fragment.map { Array(UnsafeBufferPointer(rebasing: buffer[$0])) }
                )
            }
        }
        let query: [UInt8]?
        let fragment: [UInt8]?
        switch split {
        case .success(let parts): (query, fragment) = parts
        case .failure(.missingScheme): throw .invalidRequest(.baseURLMissingScheme(baseURL: absolute))
        case .failure(.missingHost): throw .invalidRequest(.baseURLMissingHost(baseURL: absolute))
        }
        var builder = URLBuilder(bytes: main, pendingQuery: query, fragment: fragment)
        if !path.isEmpty {
            // `scheme://host` is never trimmed: the host check above guarantees something after `//`.
            while builder.bytes.last == UInt8(ascii: "/") { builder.bytes.removeLast() }
            builder.bytes.append(UInt8(ascii: "/"))
            try builder.appendPath(path)
        }
        if let query = builder.pendingQuery {
            builder.bytes.append(UInt8(ascii: "?"))
            builder.bytes.append(query)
            builder.hasQuery = true
            builder.pendingQuery = nil
        }
        return builder
    }

    /// Copies a path that is already percent-encoded where it needs to be. Characters a URL cannot hold literally
    /// (spaces, `?`, `#`, non-ASCII) are escaped the way Moya's `appendingPathComponent` does; an existing `%XX`
    /// is kept so that `\(pathSegment:)` output passes through unchanged. A `.` or `..` segment is refused: it
    /// would climb out of the base path (`../../admin` from `/v1`).
    private mutating func appendPath(_ path: String) throws(NALError) {
        var path = path
        let problem: String? = path.withUTF8 { bytes in
            var index = 0
            while index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
            var segmentStart = index
            while index <= bytes.count {
                if index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                    let length = index - segmentStart
                    if length == 1 || length == 2,
                        bytes[segmentStart..<index].allSatisfy({ $0 == UInt8(ascii: ".") })
                    {
                        let segment = length == 1 ? "." : ".."
                        return "has the dot segment '\(segment)' at byte offset \(segmentStart); dot segments would "
                            + "leave the base path, so interpolate dynamic values with \\(pathSegment:)"
                    }
                    segmentStart = index + 1
                    if index == bytes.count { break }
                }
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || PercentEncoding.isSegmentAllowed(byte) {
                    self.bytes.append(byte)
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count,
                        PercentEncoding.isHexDigit(bytes[index + 1]), PercentEncoding.isHexDigit(bytes[index + 2])
                    else {
                        return "has a '%' at byte offset \(index) that does not start a %XX escape"
                    }
                    self.bytes.append(UnsafeBufferPointer(rebasing: bytes[index...(index + 2)]))
                    index += 2
                } else if byte < 0x20 || byte == 0x7F {
                    return "contains the control character \(HTTPToken.hexByte(byte)) at byte offset \(index)"
                } else {
                    PercentEncoding.appendEscaped(byte, to: &self.bytes)
                }
                index += 1
            }
            return nil
        }
        if let problem { throw .invalidRequest(.invalidPath(path: path, problem: problem)) }
    }

    /// Appends parameters to the query as `URLEncoding` does: after `&` if a query exists; empty parameters change
    /// nothing. The writer works in this builder's buffer, so nothing is copied.
    mutating func appendQuery(_ parameters: Parameters, encoding: URLEncoding) throws(NALError) {
        guard !parameters.isEmpty else { return }
        try appendQuery(encoding: encoding) { (writer) throws(ParameterFault) in try writer.write(parameters) }
    }

    /// Appends a list's pairs to the query, as for `Parameters`.
    mutating func appendQuery(_ list: ParameterList, encoding: URLEncoding) throws(NALError) {
        guard !list.isEmpty else { return }
        try appendQuery(encoding: encoding) { (writer) throws(ParameterFault) in try writer.write(list) }
    }

    private mutating func appendQuery(
        encoding: URLEncoding, write: (inout QueryStringWriter) throws(ParameterFault) -> Void
    ) throws(NALError) {
        let separated = hasQuery
        if !hasQuery {
            bytes.append(UInt8(ascii: "?"))
            hasQuery = true
        }
        var writer = QueryStringWriter(
            arrayEncoding: encoding.arrayEncoding,
            boolEncoding: encoding.boolEncoding,
            appendingTo: bytes.take(),
            needsSeparator: separated
        )
        defer { bytes = writer.output.take() }
        do { try write(&writer) } catch { throw error.nalError }
    }

    /// Appends already-encoded query text; empty text changes nothing.
    mutating func appendEncodedQuery(_ encoded: [UInt8]) {
        guard !encoded.isEmpty else { return }
        bytes.append(hasQuery ? UInt8(ascii: "&") : UInt8(ascii: "?"))
        hasQuery = true
        bytes.append(encoded)
    }

    /// Finishes the URL string and parses it once; the builder is used up.
    consuming func makeURL() throws(NALError) -> URL {
        if let fragment {
            bytes.append(UInt8(ascii: "#"))
            bytes.append(fragment)
        }
        let string = bytes.makeString()
        guard let url = URL(string: string) else { throw .invalidRequest(.invalidURL(string)) }
        return url
    }
}
