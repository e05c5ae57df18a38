import Foundation

/// Builds a URL string byte by byte and parses it once at the end.
struct URLBuilder {
    /// Everything before the query: `scheme://host/path`.
    private var main: [UInt8]
    /// The query without `?`, or `nil` when the URL has none.
    private var query: [UInt8]?
    /// The fragment without `#`, or `nil`.
    private var fragment: Substring?

    /// Starts from an existing URL, keeping its query and fragment.
    init(url: URL) {
        let parts = Self.split(url.absoluteString)
        main = Array(parts.main.utf8)
        query = parts.query.map { Array($0.utf8) }
        fragment = parts.fragment
    }

    /// Joins `path` to `baseURL`: no doubled or lost slashes, the base path and query are kept.
    init(baseURL: URL, path: String) throws(NALError) {
        // One read of `absoluteString`; scheme and host are checked on its bytes rather than through `scheme` and
        // `host`, which cost a parse each on every request.
        let absolute = baseURL.absoluteString
        let parts = Self.split(absolute)
        try Self.checkSchemeAndHost(parts.main, of: absolute)
        main = []
        main.reserveCapacity(absolute.utf8.count + path.utf8.count + 128)
        main.append(contentsOf: parts.main.utf8)
        query = parts.query.map { Array($0.utf8) }
        fragment = parts.fragment
        guard !path.isEmpty else { return }

        // `scheme://host` is never trimmed: the host check above guarantees something after `//`.
        while main.last == UInt8(ascii: "/") { main.removeLast() }
        main.append(UInt8(ascii: "/"))
        try appendPath(path)
    }

    /// `scheme ":" "//" authority` with a non-empty host (RFC 3986 §3): the part before the first `/` of the path.
    private static func checkSchemeAndHost(_ main: Substring, of absolute: String) throws(NALError) {
        let bytes = main.utf8
        var index = bytes.startIndex
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
        }
        guard index < bytes.endIndex, isLetter(bytes[index]) else {
            throw .invalidRequest(.baseURLMissingScheme(baseURL: absolute))
        }
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: ":") {
            let byte = bytes[index]
            guard
                isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { throw .invalidRequest(.baseURLMissingScheme(baseURL: absolute)) }
            index = bytes.index(after: index)
        }
        guard index < bytes.endIndex else { throw .invalidRequest(.baseURLMissingScheme(baseURL: absolute)) }
        let afterColon = bytes[bytes.index(after: index)...]
        guard afterColon.starts(with: "//".utf8) else { throw .invalidRequest(.baseURLMissingHost(baseURL: absolute)) }
        let authority = afterColon.dropFirst(2).prefix { $0 != UInt8(ascii: "/") }
        let hostAndPort =
            authority.lastIndex(of: UInt8(ascii: "@")).map { authority[authority.index(after: $0)...] }
            ?? authority
        let host: Substring.UTF8View.SubSequence
        if hostAndPort.first == UInt8(ascii: "[") {
            host = hostAndPort.prefix { $0 != UInt8(ascii: "]") }.dropFirst()
        } else {
            host = hostAndPort.prefix { $0 != UInt8(ascii: ":") }
        }
        guard !host.isEmpty else { throw .invalidRequest(.baseURLMissingHost(baseURL: absolute)) }
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
                    if (length == 1 || length == 2), bytes[segmentStart..<index].allSatisfy({ $0 == UInt8(ascii: ".") })
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
                    main.append(byte)
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count,
                        PercentEncoding.isHexDigit(bytes[index + 1]), PercentEncoding.isHexDigit(bytes[index + 2])
                    else {
                        return "has a '%' at byte offset \(index) that does not start a %XX escape"
                    }
                    main.append(contentsOf: bytes[index...(index + 2)])
                    index += 2
                } else if byte < 0x20 || byte == 0x7F {
                    let code = String(byte, radix: 16, uppercase: true)
                    return
                        "contains the control character 0x\(code.count == 1 ? "0" + code : code) at byte offset \(index)"
                } else {
                    PercentEncoding.appendEscaped(byte, to: &main)
                }
                index += 1
            }
            return nil
        }
        if let problem { throw .invalidRequest(.invalidPath(path: path, problem: problem)) }
    }

    /// Appends parameters to the query as `URLEncoding` does: after `&` if a query exists; empty parameters change
    /// nothing.
    mutating func appendQuery(_ parameters: Parameters, encoding: URLEncoding) throws(NALError) {
        guard !parameters.isEmpty else { return }
        let existing = query
        query = nil
        var writer = QueryStringWriter(
            arrayEncoding: encoding.arrayEncoding,
            boolEncoding: encoding.boolEncoding,
            appendingTo: existing ?? [],
            needsSeparator: existing != nil
        )
        do { try writer.write(parameters) } catch { throw error.nalError }
        query = writer.output
    }

    /// Appends already-encoded query text; empty text changes nothing.
    mutating func appendEncodedQuery(_ encoded: [UInt8]) {
        guard !encoded.isEmpty else { return }
        if query == nil {
            query = encoded
        } else {
            query?.append(UInt8(ascii: "&"))
            query?.append(contentsOf: encoded)
        }
    }

    /// Finishes the URL string in place and parses it once.
    mutating func makeURL() throws(NALError) -> URL {
        var bytes = main
        main = []
        if let query {
            bytes.append(UInt8(ascii: "?"))
            bytes.append(contentsOf: query)
        }
        if let fragment {
            bytes.append(UInt8(ascii: "#"))
            bytes.append(contentsOf: fragment.utf8)
        }
        let string = String(decoding: bytes, as: UTF8.self)
        guard let url = URL(string: string) else { throw .invalidRequest(.invalidURL(string)) }
        return url
    }

    /// Splits `scheme://host/path?query#fragment` at the first `?` and `#`, scanning bytes rather than
    /// `Character`s (grapheme breaking is slow and these delimiters are ASCII).
    private static func split(_ url: String) -> (main: Substring, query: Substring?, fragment: Substring?) {
        let utf8 = url.utf8
        var main = Substring(url)
        var fragment: Substring?
        if let hash = utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = url[utf8.index(after: hash)...]
            main = url[..<hash]
        }
        var query: Substring?
        if let question = main.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = main[main.utf8.index(after: question)...]
            main = main[..<question]
        }
        return (main, query, fragment)
    }
}
