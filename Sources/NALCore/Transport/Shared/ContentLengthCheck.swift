import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// RFC 9112 §6.3: a `Content-Length` that is not one number ("2, 4", two fields that disagree, "0x2", "+2") leaves
/// the body's end unknown, and a recipient must treat the response as an error. libcurl, under both transports, would
/// frame the body by one of the values; NAL refuses the response instead.
///
/// Reads the values in place, without allocating: every response with a body passes through it.
struct ContentLengthCheck {
    /// The first length read, without leading zeros, to compare the others with.
    private var first: Substring?
    /// Every value read so far names the same length, in digits only (a list of one number, "6, 6", passes: RFC
    /// 9110 §8.6; so do "6" and "06").
    private(set) var namesOneLength = true

    /// Reads one field's value, which may be a comma-separated list.
    mutating func read(_ value: String) {
        var rest = value[...]
        while namesOneLength {
            let comma = rest.firstIndex(of: ",")
            check(Self.trimmed(rest[..<(comma ?? rest.endIndex)]))
            guard let comma else { return }
            rest = rest[rest.index(after: comma)...]
        }
    }

    /// The one length the values read name, or `nil` when they name none, or one past `Int.max`.
    var length: Int? {
        guard namesOneLength, let first else { return nil }
        return first.isEmpty ? 0 : Int(first)
    }

    /// Whether the values name one length past `Int.max` (a 64-bit count): libcurl ignores such a length and reads
    /// to the connection's close, so a body cut short would pass for whole (RFC 9110 §8.6: a recipient must not
    /// let the numeral's size defeat its parsing).
    var isPastLargestLength: Bool {
        guard namesOneLength, let first, !first.isEmpty else { return false }
        return Int(first) == nil
    }

    private mutating func check(_ length: Substring) {
        guard !length.isEmpty, length.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            namesOneLength = false
            return
        }
        let number = length.drop { $0 == "0" }
        guard let first else {
            first = number
            return
        }
        if !first.utf8.elementsEqual(number.utf8) { namesOneLength = false }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.utf8.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.utf8.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        return text
    }

    /// The error for a response whose `Content-Length` fields hold `values` (each as sent, or as Foundation joined
    /// them), or `nil` when they name one length.
    static func failure(_ values: [String], url: URL?) -> NALError? {
        var check = ContentLengthCheck()
        for value in values { check.read(value) }
        return check.failure(shown: values.joined(separator: ", "), url: url)
    }

    /// The error for the values read, shown as `shown`, or `nil` when they name one length NAL can count.
    func failure(shown: String, url: URL?) -> NALError? {
        if !namesOneLength { return Self.failure(shown: shown, url: url) }
        if isPastLargestLength { return Self.failure(shown: shown, url: url, why: "is past the largest length") }
        return nil
    }

    /// The error for a `Content-Length` that is not one length (or, `why`, not one NAL can count), shown as `shown`.
    static func failure(shown: String, url: URL?, why: String = "is not one length") -> NALError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "the response's Content-Length (\(DisplayText.capped(shown))) \(why), so where its body "
                + "ends is unknown (RFC 9112 §6.3)"
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.cannotParseResponse, userInfo: userInfo))
    }
}
