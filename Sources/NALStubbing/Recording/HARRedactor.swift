import Foundation
import NALCore

/// Redacts one exchange before it is written to a cassette or an export, by the rules of `curlCommand()`
/// (`SensitiveData`): sensitive headers (`Authorization`, `Cookie`, `Set-Cookie`, API keys), sensitive query and
/// body fields, URL passwords. Then it scrubs the secret values it found in the request from everything else: a
/// server that echoes a token back (in a JSON string, a URL, a header) must not leak it into the file either.
struct HARRedactor {
    private let sensitive: SensitiveData
    /// Secret values seen in the request, longest first, with their percent-encoded forms.
    private var secrets: [String] = []

    /// Shorter values are too likely to appear by chance to be scrubbed everywhere.
    static let minimumSecretLength = 4

    init(sensitive: SensitiveData = .current) {
        self.sensitive = sensitive
    }

    /// Collects the secrets of a request: values of sensitive headers (and the credential after a scheme such as
    /// `Bearer`), the URL's password, sensitive query values, sensitive fields of a form or JSON body.
    mutating func learnSecrets(url: URL?, headers: [String: String], body: Data?) {
        var found: [String] = []
        for (name, value) in headers where sensitive.isSensitiveHeader(name) {
            found.append(value)
            if let space = value.firstIndex(of: " ") { found.append(String(value[value.index(after: space)...])) }
            for cookie in value.split(separator: ";") {
                if let equals = cookie.firstIndex(of: "=") {
                    found.append(String(cookie[cookie.index(after: equals)...]))
                }
            }
        }
        if let url {
            if let password = url.password { found.append(password) }
            for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            where sensitive.isSensitiveQueryKey(item.name) {
                found.append(item.value ?? "")
            }
        }
        if let body, !body.isEmpty {
            if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
                collect(json, sensitiveKey: false, into: &found)
            } else if let text = String(data: body, encoding: .utf8) {
                for pair in text.split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    let key = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                    if sensitive.isSensitiveBodyField(key) {
                        found.append(
                            String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "")
                    }
                }
            }
        }
        var all = Set(secrets)
        for secret in found.map({ $0.trimmingCharacters(in: .whitespaces) })
        where secret.count >= Self.minimumSecretLength && secret != SensitiveData.marker {
            all.insert(secret)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                all.insert(encoded)
            }
        }
        secrets = all.sorted { $0.count > $1.count }
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
        scrub(sensitive.redacting(url: url)).replacingOccurrences(of: SensitiveData.marker, with: Self.markerInURL)
    }

    /// The marker as a URL carries it.
    static let markerInURL = "%3Credacted%3E"

    /// A header value as a cassette stores it.
    func header(_ name: String, _ value: String) -> String {
        scrub(sensitive.displayValue(value, forHeader: name))
    }

    /// A body as a cassette stores it: JSON and form fields redacted, secrets scrubbed. Bytes that are not text
    /// are kept as they are.
    func body(_ body: Data, contentType: String?) -> Data {
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "["),
            let redacted = sensitive.redacting(json: body)
        {
            return Data(scrub(redacted).utf8)
        }
        guard let text = String(data: body, encoding: .utf8) else { return body }
        if type.hasPrefix("application/x-www-form-urlencoded") {
            return Data(scrub(sensitive.redacting(formFields: text)).utf8)
        }
        let scrubbed = scrub(text)
        return scrubbed == text ? body : Data(scrubbed.utf8)
    }

    /// `text` with every secret seen in the request replaced by the marker.
    func scrub(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: SensitiveData.marker)
        }
        return result
    }
}
