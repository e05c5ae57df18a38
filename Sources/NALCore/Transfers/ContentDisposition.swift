import Foundation

/// Reads the file name of a `Content-Disposition` header (RFC 6266): `filename*=UTF-8''…` first, then `filename=`.
enum ContentDisposition {
    static func fileName(_ header: String) -> String? {
        var plain: String?
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                let parts = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0].lowercased() == "utf-8", let decoded = parts[2].removingPercentEncoding {
                    return decoded
                }
            case "filename":
                var value = pair[1]
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                plain = value
            default:
                continue
            }
        }
        return plain
    }
}
