public import Foundation
import NALLogging

/// The one list of what NAL treats as a secret: which header names, query keys and body fields carry credentials.
///
/// cURL output, NAL's logs, error messages and recorded fixtures redact through it, and `URLSessionTransport`
/// removes the headers it names from a redirect to another origin.
///
/// A name is sensitive when its last component contains one of `words`, in any letter case: `Authorization`
/// (`auth`), `X-Session-Token`, `Api-Key`, `user[password]` (`password`), `access_token[]` (`token`). Names in
/// `headerNames`, `queryKeys` and `bodyFields` are sensitive too, matched whole and in any letter case.
///
/// The process-wide list is `SensitiveData.current`; add your own words or names at start-up:
///
/// ```swift
/// SensitiveData.current.words.insert("pin")
/// SensitiveData.current.headerNames.insert("X-Tenant")
/// ```
public struct SensitiveData: Sendable, Equatable {
    /// The words of the default list.
    public static let defaultWords: Set<String> = [
        "password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "auth", "session", "cookie",
        "signature", "credential",
    ]

    /// What a redacted value is shown as.
    public static let marker = "<redacted>"

    /// A name whose last component contains one of these words (in any letter case) is sensitive.
    public var words: Set<String> {
        didSet { loweredWords = words.map { Array($0.lowercased().utf8) } }
    }
    /// Header names that are sensitive whatever their words.
    public var headerNames: Set<String>
    /// Query keys that are sensitive whatever their words.
    public var queryKeys: Set<String>
    /// JSON and form body fields that are sensitive whatever their words.
    public var bodyFields: Set<String>
    private var loweredWords: [[UInt8]]

    /// Creates a list; by default the words of `defaultWords` and no extra names.
    public init(
        words: Set<String> = SensitiveData.defaultWords, headerNames: Set<String> = [], queryKeys: Set<String> = [],
        bodyFields: Set<String> = []
    ) {
        self.words = words
        self.headerNames = headerNames
        self.queryKeys = queryKeys
        self.bodyFields = bodyFields
        loweredWords = words.map { Array($0.lowercased().utf8) }
    }

    private static let storage = Locked(SensitiveData())

    /// The list NAL uses everywhere: cURL output, logs, errors, fixtures and redirects. Change it at start-up.
    public static var current: SensitiveData {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Response headers whose names hold a word of the list but whose values never carry a secret: they describe
    /// what a server accepts (`Access-Control-Allow-Credentials: true`, a challenge's scheme and realm).
    public static let publicHeaderNames: Set<String> = [
        "access-control-allow-credentials", "access-control-allow-headers", "access-control-expose-headers",
        "access-control-request-headers", "www-authenticate", "proxy-authenticate",
    ]

    /// Whether the header `name` carries a secret.
    public func isSensitiveHeader(_ name: String) -> Bool {
        if Self.containsIgnoringCase(headerNames, name) { return true }
        return containsWord(name.utf8[...]) && !Self.containsIgnoringCase(Self.publicHeaderNames, name)
    }

    /// Whether the query key `key` (unescaped, for example `user[password]`) carries a secret.
    public func isSensitiveQueryKey(_ key: String) -> Bool {
        containsWord(Self.lastComponent(of: key)) || Self.containsIgnoringCase(queryKeys, key)
    }

    /// Whether the JSON or form field `name` carries a secret.
    public func isSensitiveBodyField(_ name: String) -> Bool {
        containsWord(Self.lastComponent(of: name)) || Self.containsIgnoringCase(bodyFields, name)
    }

    /// The value to show for the header `name`: unchanged unless it is a secret. A credential with a scheme keeps
    /// the scheme (`Bearer <redacted>`): it helps debugging and reveals nothing.
    public func displayValue(_ value: String, forHeader name: String) -> String {
        guard isSensitiveHeader(name) else { return value }
        if let space = value.firstIndex(of: " "), HTTPToken.isValid(String(value[..<space])) {
            return value[..<space] + " " + Self.marker
        }
        return Self.marker
    }

    /// `url` with the password of its user information, and the values of sensitive query and fragment fields,
    /// replaced by the marker: `https://ada:<redacted>@host/x?token=<redacted>&page=2`.
    public func redacting(url: String) -> String {
        var result = Self.redactingPassword(in: url)
        guard let question = result.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return result }
        var tail = ""
        var rest = result[question...]
        while let separator = rest.first {
            let body = rest.dropFirst()
            let end = separator == "?" ? (body.firstIndex(of: "#") ?? body.endIndex) : body.endIndex
            tail += String(separator) + redacting(formFields: body[..<end])
            rest = body[end...]
        }
        result = result[..<question] + tail
        return result
    }

    /// Form or query text (`a=1&password=x`) with the values of sensitive fields replaced by the marker.
    public func redacting(formFields text: some StringProtocol) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawKey = pair[..<equals]
            let key = String(rawKey).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawKey)
            return isSensitiveQueryKey(key) || isSensitiveBodyField(key)
                ? rawKey + "=" + Self.marker : String(pair)
        }.joined(separator: "&")
    }

    /// JSON text with the value of every sensitive field, at any depth, replaced by `"<redacted>"`; everything
    /// else is kept byte for byte. `nil` when `json` is not valid JSON.
    public func redacting(json: Data) -> String? {
        var redactor = JSONRedactor(input: Array(json), isSensitive: isSensitiveBodyField)
        guard let bytes = redactor.run() else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The last named component of a key: `user[password]` gives `password`, `access_token[]` gives
    /// `access_token`, `tokens[0]` gives `tokens`, `user.secret` gives `secret`.
    static func lastComponent(of key: String) -> Substring.UTF8View {
        let components = key.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." })
        let named = components.last { component in !component.allSatisfy(\.isNumber) }
        return (named ?? key[...]).utf8
    }

    private func containsWord(_ name: Substring.UTF8View) -> Bool {
        let lowered = name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        return loweredWords.contains { word in
            !word.isEmpty && lowered.count >= word.count
                && (0...(lowered.count - word.count)).contains { start in
                    lowered[start..<(start + word.count)].elementsEqual(word)
                }
        }
    }

    private static func containsIgnoringCase(_ names: Set<String>, _ name: String) -> Bool {
        !names.isEmpty && names.contains { HTTPToken.equalsIgnoringASCIICase($0, name) }
    }

    /// `scheme://user:password@host` with the password replaced; the user name stays visible.
    private static func redactingPassword(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@"),
            let colon = url[authorityStart..<at].firstIndex(of: ":")
        else { return url }
        return url[...colon] + marker + url[at...]
    }
}
