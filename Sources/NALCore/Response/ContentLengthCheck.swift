import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// RFC 9112 §6.3: a `Content-Length` that is not one number ("2, 4", two fields that disagree, "0x2", "+2") leaves
/// the body's end unknown, and a recipient must treat the response as an error. libcurl, under both transports, would
/// frame the body by one of the values; NAL refuses the response instead.
enum ContentLengthCheck {
    /// The error for a response whose `Content-Length` fields hold `values` (each as sent, or as Foundation joined
    /// them), or `nil` when they name one length, repeated or not (RFC 9110 §8.6 lets a list of one number through).
    static func failure(_ values: [String], url: URL?) -> NALError? {
        let lengths = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first else { return nil }
        let isNumber = !first.isEmpty && first.utf8.allSatisfy { (0x30...0x39).contains($0) }
        if isNumber, lengths.allSatisfy({ $0 == first }) { return nil }
        let shown = DisplayText.capped(values.joined(separator: ", "))
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "the response's Content-Length (\(shown)) is not one length, so where its body ends is unknown "
                + "(RFC 9112 §6.3)"
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.cannotParseResponse, userInfo: userInfo))
    }
}
