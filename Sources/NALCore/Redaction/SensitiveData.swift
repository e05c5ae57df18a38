import Foundation
import NALLogging
import NALSupport

/// The one list of what NAL treats as a secret: which header names, query keys and body fields carry credentials.
///
/// cURL output, NAL's logs, error messages and recorded fixtures redact through it, and `URLSessionTransport`
/// removes the headers it names from a redirect to another origin.
///
/// Names are read as words: split at every character that is not a letter or digit and where a lower-case letter
/// meets an upper-case one, so `X-Api-Key`, `api_key` and `apiKey` are the words `api key`. A name is sensitive
/// when, read this way, it ends a word with one of `words` (in any letter case, a plural `s` allowed): `auth_token`,
/// `X-Auth-Token`, `accessToken`, `csrftoken` and `user[password]` are, while `author`, `authority`, `tokenizer`
/// and `password_hint[length]` are not. Names in `headerNames`, `queryKeys` and `bodyFields` are sensitive too,
/// matched whole and in any letter case.
///
/// The process-wide list is `SensitiveData.current`; add your own words or names at start-up:
///
/// ```swift
/// SensitiveData.current.words.insert("pin")
/// SensitiveData.current.headerNames.insert("X-Tenant")
/// ```
public struct SensitiveData: Sendable, Equatable {
    /// The words of the default list. Separators in a word do not count: `api_key` also matches `apiKey`.
    public static let defaultWords: Set<String> = [
        "password", "passwd", "passphrase", "secret", "token", "apikey", "auth", "authorization", "session",
        "sessionid", "sessid", "cookie", "signature", "credential", "privatekey", "jwt", "sig", "otp",
    ]

    /// What a redacted value is shown as.
    public static let marker = "<redacted>"

    /// A name that ends a word with one of these (in any letter case) is sensitive.
    public var words: Set<String> {
        didSet { normalizedWords = Self.normalized(words) }
    }
    /// Header names that are sensitive whatever their words.
    public var headerNames: Set<String>
    /// Query keys that are sensitive whatever their words.
    public var queryKeys: Set<String>
    /// JSON and form body fields that are sensitive whatever their words.
    public var bodyFields: Set<String>
    /// `words` in lower case, letters and digits only.
    private var normalizedWords: [[UInt8]]

    /// Creates a list; by default the words of `defaultWords` and no extra names.
    public init(
        words: Set<String> = SensitiveData.defaultWords, headerNames: Set<String> = [], queryKeys: Set<String> = [],
        bodyFields: Set<String> = []
    ) {
        self.words = words
        self.headerNames = headerNames
        self.queryKeys = queryKeys
        self.bodyFields = bodyFields
        normalizedWords = Self.normalized(words)
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
        return endsAWord(name.utf8[...]) && !Self.containsIgnoringCase(Self.publicHeaderNames, name)
    }

    /// Whether the query key `key` (unescaped, for example `user[password]`) carries a secret.
    public func isSensitiveQueryKey(_ key: String) -> Bool {
        Self.namedComponents(of: key).contains { endsAWord($0.utf8) } || Self.containsIgnoringCase(queryKeys, key)
    }

    /// Whether the JSON or form field `name` carries a secret.
    public func isSensitiveBodyField(_ name: String) -> Bool {
        Self.namedComponents(of: name).contains { endsAWord($0.utf8) } || Self.containsIgnoringCase(bodyFields, name)
    }

    /// The named components of a key, any of which makes it sensitive: `user[password]` gives `user` and
    /// `password`, `password[new]` gives `password` and `new` (the secret is the new password), `access_token[]`
    /// gives `access_token`, `tokens[0]` gives `tokens`, `user.secret` gives `user` and `secret`.
    static func namedComponents(of key: String) -> [Substring] {
        let components = key.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." })
        let named = components.filter { component in !component.allSatisfy(\.isNumber) }
        return named.isEmpty ? [key[...]] : named
    }

    /// Whether one of the words, or its plural, ends where a word of `name` ends.
    private func endsAWord(_ name: Substring.UTF8View) -> Bool {
        let (letters, wordEnds) = Self.words(of: name)
        for end in wordEnds {
            for word in normalizedWords where !word.isEmpty {
                if end >= word.count, letters[(end - word.count)..<end].elementsEqual(word) { return true }
                if end > word.count, letters[end - 1] == UInt8(ascii: "s"),
                    letters[(end - 1 - word.count)..<(end - 1)].elementsEqual(word)
                {
                    return true
                }
            }
        }
        return false
    }

    /// The letters and digits of `name` in lower case, and the offsets in them where a word ends: at a separator,
    /// where a lower-case letter or digit meets an upper-case letter, and at the end.
    private static func words(of name: Substring.UTF8View) -> (letters: [UInt8], wordEnds: [Int]) {
        var letters: [UInt8] = []
        var ends: [Int] = []
        var previousWasLowerOrDigit = false
        for byte in name {
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isUpper || isLower || isDigit || byte >= 0x80 else {
                if ends.last != letters.count, !letters.isEmpty { ends.append(letters.count) }
                previousWasLowerOrDigit = false
                continue
            }
            if isUpper, previousWasLowerOrDigit, ends.last != letters.count { ends.append(letters.count) }
            letters.append(isUpper ? byte | 0x20 : byte)
            previousWasLowerOrDigit = isLower || isDigit
        }
        if !letters.isEmpty, ends.last != letters.count { ends.append(letters.count) }
        return (letters, ends)
    }

    private static func normalized(_ words: Set<String>) -> [[UInt8]] {
        words.map { word in
            word.utf8.filter { $0 >= 0x80 || $0.isASCIILetterOrDigit }.map { $0.isASCIIUpper ? $0 | 0x20 : $0 }
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func containsIgnoringCase(_ names: Set<String>, _ name: String) -> Bool {
        !names.isEmpty && names.contains { HTTPToken.equalsIgnoringASCIICase($0, name) }
    }
}

extension UInt8 {
    fileprivate var isASCIIUpper: Bool { self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") }
    fileprivate var isASCIILetterOrDigit: Bool {
        isASCIIUpper || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
    }
}
