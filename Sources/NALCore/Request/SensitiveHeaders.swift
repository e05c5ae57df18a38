/// Which headers and query parameters carry secrets, and how they are shown when redacted. NAL's logs, cURL output
/// and recorded fixtures all redact through this one list.
public enum SensitiveHeaders {
    /// What a redacted secret is shown as.
    public static let redactionMarker = "<redacted>"

    /// Lower-cased names of headers whose values are secrets.
    public static let names: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
        "x-csrf-token", "x-xsrf-token",
    ]

    /// Lower-cased names of query parameters whose values are secrets.
    public static let queryParameterNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret", "password",
    ]

    /// Whether the header `name` (any letter case) carries a secret.
    public static func isSensitive(_ name: String) -> Bool {
        names.contains(name.lowercased())
    }

    /// The value to show for header `name`: unchanged unless it is a secret. For `Authorization` the scheme stays
    /// visible (`Bearer <redacted>`), because it helps debugging and reveals nothing.
    public static func displayValue(_ value: String, forName name: String) -> String {
        guard isSensitive(name) else { return value }
        let lowered = name.lowercased()
        if lowered == "authorization" || lowered == "proxy-authorization",
            let space = value.firstIndex(of: " ")
        {
            return value[..<space] + " " + redactionMarker
        }
        return redactionMarker
    }

    /// `url` with the values of secret query parameters replaced by the redaction marker.
    public static func redactingQuery(of url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        return url[..<question] + "?" + redactingFormFields(of: query) + url[fragmentStart...]
    }

    /// Form or query text (`a=1&password=x`) with the values of secret fields replaced by the redaction marker.
    public static func redactingFormFields(of text: some StringProtocol) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = pair[..<equals].removingPercentEncoding?.lowercased() ?? ""
            return queryParameterNames.contains(key) ? pair[..<equals] + "=" + redactionMarker : String(pair)
        }.joined(separator: "&")
    }
}
