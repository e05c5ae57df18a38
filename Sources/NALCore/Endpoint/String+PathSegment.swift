extension String.StringInterpolation {
    /// Interpolates `segment` percent-encoded as exactly one path segment.
    ///
    /// `"users/\(pathSegment: login)"` keeps a login such as `a/b?c` inside one segment (`a%2Fb%3Fc`). Everything
    /// outside RFC 3986's `pchar` is escaped, `%` included; the dot segments `.` and `..` become `%2E` and `%2E%2E`
    /// so that a value can never climb up the path.
    public mutating func appendInterpolation(pathSegment segment: String) {
        if segment == "." || segment == ".." {
            appendLiteral(segment == "." ? "%2E" : "%2E%2E")
            return
        }
        var output: [UInt8] = []
        output.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            if PercentEncoding.isSegmentAllowed(byte) {
                output.append(byte)
            } else {
                PercentEncoding.appendEscaped(byte, to: &output)
            }
        }
        appendLiteral(String(decoding: output, as: UTF8.self))
    }
}
