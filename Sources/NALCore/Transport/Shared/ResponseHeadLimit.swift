import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How large a response head may be, over every transport: 256 KiB in all, interim heads and trailers included.
/// libcurl before 8.3 does not bound a head's size (CVE-2023-38039), and 7.88 reports one line past its 100 KiB as
/// running out of memory, with no detail; NAL bounds the whole head and names the problem.
enum ResponseHeadLimit {
    /// The most bytes of heads a response may have.
    static let maximumBytes = 256 << 10

    /// The error for a response whose heads pass `maximumBytes`, or hold a line longer than libcurl takes: no
    /// setting of the caller's changes it.
    static func failure(url: URL?) -> NALError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "The server's response head is larger than NAL accepts (\(maximumBytes >> 10) KiB in all, "
                + "or a line libcurl cannot hold)"
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.dataLengthExceedsMaximum, userInfo: userInfo))
    }

    /// About how many bytes `response`'s head took on the wire: each field as `Name: value` and its line end.
    static func size(of response: HTTPURLResponse) -> Int {
        var total = 0
        for (name, value) in response.allHeaderFields {
            total += "\(name)".utf8.count + "\(value)".utf8.count + 4
        }
        return total
    }
}
