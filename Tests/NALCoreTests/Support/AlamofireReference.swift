import Foundation

/// An independent re-implementation of Alamofire 5's documented `URLEncoding` query algorithm on Foundation's own
/// percent-encoding, used as an oracle: NAL's byte-level writer must produce exactly the same bytes.
enum AlamofireReference {
    /// Alamofire's `afURLQueryAllowed`: `urlQueryAllowed` without the RFC 3986 general and sub-delimiters.
    static let allowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: ":#[]@" + "!$&'()*+,;=")
        return set
    }()

    static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }

    /// Components of `key` = `value` with nested keys sorted; `Any` here is only the oracle's own input tree.
    static func components(_ key: String, _ value: Any) -> [(String, String)] {
        switch value {
        case let dictionary as [String: Any]:
            dictionary.sorted { $0.key < $1.key }.flatMap { components("\(key)[\($0.key)]", $0.value) }
        case let array as [Any]:
            array.flatMap { components("\(key)[]", $0) }
        case let bool as Bool:
            [(escape(key), bool ? "1" : "0")]
        default:
            [(escape(key), escape("\(value)"))]
        }
    }

    static func query(_ parameters: [String: Any]) -> String {
        parameters.sorted { $0.key < $1.key }
            .flatMap { components($0.key, $0.value) }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
