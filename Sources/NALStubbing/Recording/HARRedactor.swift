import Foundation
import NALCore
import NALSupport

/// Redacts one exchange before it is written to a cassette or an export, by the rules of `curlCommand()`
/// (`SensitiveData`): sensitive headers (`Authorization`, `Cookie`, `Set-Cookie`, API keys), sensitive query and
/// body fields, URL passwords. Then it removes the secret values it has learned (from the request, and from cookies
/// the server set) wherever a server echoes them back: a whole JSON string, a whole header or form value, a whole
/// URL component, or the secret itself in other text; never part of a number or of a longer word.
struct HARRedactor {
    private let sensitive: SensitiveData
    /// Secret values learned so far, with their percent-encoded forms.
    private(set) var secrets: Set<String>

    /// Shorter values are too likely to appear by chance to be removed everywhere.
    static let minimumSecretLength = 4

    init(sensitive: SensitiveData = .current, knownSecrets: Set<String> = []) {
        self.sensitive = sensitive
        secrets = knownSecrets
    }

    /// Collects the secrets of a request: values of sensitive headers (and the credential after a scheme such as
    /// `Bearer`, and each cookie's value), the URL's user information, sensitive query values, sensitive fields of a
    /// form or JSON body.
    mutating func learnSecrets(url: URL?, headers: [String: String], body: Data?) {
        var found: [String] = []
        for (name, value) in headers where sensitive.isSensitiveHeader(name) {
            found.append(value)
            if let space = value.firstIndex(of: " ") { found.append(String(value[value.index(after: space)...])) }
            found += Self.cookieValues(value, separator: ";")
        }
        if let url { found += urlSecrets(url) }
        if let body, !body.isEmpty {
            if let type = headers.headerValue("Content-Type"), type.lowercased().hasPrefix("multipart/"),
                let boundary = MultipartEncoder.boundary(inContentType: type)
            {
                found += sensitive.secrets(inMultipart: body, boundary: boundary)
            } else if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
                collect(json, sensitiveKey: false, into: &found)
            } else if let text = String(data: body, encoding: .utf8) {
                for (key, value) in FormFields.pairs(in: text) where sensitive.isSensitiveBodyField(key) {
                    found.append(value)
                }
            }
        }
        learn(found)
    }

    /// Collects the secrets of the URL a request ended at after redirects, which the server may echo.
    mutating func learnSecrets(redirectedTo url: URL) {
        learn(urlSecrets(url))
    }

    /// The user information of `url` and the values of its sensitive query and fragment fields, split at `&` and
    /// `;` as `SensitiveData.redacting(url:)` reads them.
    private func urlSecrets(_ url: URL) -> [String] {
        var found = [url.user, url.password].compactMap { $0 }
        let text = url.absoluteString
        guard let start = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return found }
        let separators: Set<UInt8> = [UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: "?"), UInt8(ascii: "#")]
        for (name, value) in FormFields.pairs(in: text[start...].dropFirst(), separators: separators)
        where sensitive.isSensitiveQueryKey(name) || sensitive.isSensitiveBodyField(name) {
            found.append(value)
        }
        return found
    }

    /// Collects the values of cookies that a response sets: a later request sends them, through a cookie store the
    /// recorder may not see, and an echoing server returns them.
    mutating func learnSecrets(responseHeaders headers: [String: String]) {
        for (name, value) in headers where HTTPToken.equalsIgnoringASCIICase(name, "Set-Cookie") {
            // Several cookies may be folded into one value with `, `; an `Expires` date holds a comma too, which
            // only adds a harmless non-secret candidate.
            for cookie in value.components(separatedBy: ", ") {
                learn(Self.cookieValues(String(cookie.prefix { $0 != ";" }), separator: ";"))
            }
        }
    }

    private mutating func learn(_ found: [String]) {
        for secret in found.map({ $0.trimmingCharacters(in: .whitespaces) })
        where secret.count >= Self.minimumSecretLength && secret != SensitiveData.marker {
            secrets.insert(secret)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                secrets.insert(encoded)
            }
        }
    }

    private static func cookieValues(_ text: String, separator: Character) -> [String] {
        text.split(separator: separator).compactMap { cookie in
            cookie.firstIndex(of: "=").map { String(cookie[cookie.index(after: $0)...]) }
        }
    }

    private func collect(_ value: Any, sensitiveKey: Bool, into found: inout [String]) {
        switch value {
        case let object as [String: Any]:
            for (key, inner) in object {
                collect(inner, sensitiveKey: sensitive.isSensitiveBodyField(key), into: &found)
            }
        case let array as [Any]:
            for inner in array { collect(inner, sensitiveKey: sensitiveKey, into: &found) }
        case let text as String where sensitiveKey:
            found.append(text)
        case let number as NSNumber where sensitiveKey:
            found.append(number.stringValue)
        default:
            break
        }
    }

    /// A URL as a cassette stores it; the marker is percent-encoded (`%3Credacted%3E`), so the URL still parses.
    func url(_ url: String) -> String {
        scrub(sensitive.redacting(url: url))
            .replacingOccurrences(of: SensitiveData.marker, with: SensitiveData.markerInURL)
    }

    /// The marker as a URL carries it.

    /// A header value as a cassette stores it: the marker alone when it holds a learned secret.
    func header(_ name: String, _ value: String) -> String {
        let shown = sensitive.displayValue(value, forHeader: name)
        guard HTTPToken.equalsIgnoringASCIICase(name, "Location") || HTTPToken.equalsIgnoringASCIICase(name, "Referer")
        else { return containsSecret(shown) ? SensitiveData.marker : shown }
        return scrub(shown)
    }

    /// A body as a cassette stores it: JSON (by type, or untyped and parsing) with sensitive fields and every string
    /// holding a secret redacted; form fields likewise; other text with the secrets themselves replaced. Bytes that
    /// are not text are kept as they are.
    func body(_ body: Data, contentType: String?) -> Data {
        if let contentType, contentType.lowercased().hasPrefix("multipart/"),
            let boundary = MultipartEncoder.boundary(inContentType: contentType),
            let redacted = sensitive.redacting(multipart: body, boundary: boundary, binary: nil)
        {
            // File parts keep their bytes; text is scrubbed of learned secrets only when the whole body is text.
            guard let text = String(data: redacted, encoding: .utf8) else { return redacted }
            return Data(scrub(text).utf8)
        }
        let redacted = sensitive.redacting(body: body, contentType: contentType)
        guard case .text(let text) = redacted else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") || text.first == "{" || text.first == "[" || text.first?.isWhitespace == true,
            let json = sensitive.redacting(json: Data(text.utf8), redactingStringsWhere: containsSecret)
        {
            return Data(json.utf8)
        }
        if type.hasPrefix("application/x-www-form-urlencoded") || SensitiveData.looksLikeForm(text) {
            return Data(FormFields.replacingValues(in: text) { containsSecret($0) ? SensitiveData.marker : nil }.utf8)
        }
        let scrubbed = scrub(text)
        return scrubbed == String(decoding: body, as: UTF8.self) ? body : Data(scrubbed.utf8)
    }

    /// Whether `text` holds a learned secret as a whole word (not inside a longer run of letters and digits).
    func containsSecret(_ text: String) -> Bool {
        secrets.contains { !Self.wordRanges(of: $0, in: text).isEmpty }
    }

    /// `text` with every learned secret that stands as a whole word replaced by the marker.
    func scrub(_ text: String) -> String {
        var result = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            for range in Self.wordRanges(of: secret, in: result).reversed() {
                result.replaceSubrange(range, with: SensitiveData.marker)
            }
        }
        return result
    }

    /// Where `secret` occurs in `text` with no letter or digit just before or after it.
    private static func wordRanges(of secret: String, in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var searchStart = text.startIndex
        while let found = text.range(of: secret, range: searchStart..<text.endIndex) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
            let after = found.upperBound < text.endIndex ? text[found.upperBound] : nil
            if !isWordCharacter(before) && !isWordCharacter(after) { ranges.append(found) }
            searchStart = found.upperBound
        }
        return ranges
    }

    private static func isWordCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber
    }
}
