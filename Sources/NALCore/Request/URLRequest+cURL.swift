#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension URLRequest {
    /// A `curl` command line that sends this request, one option per line.
    ///
    /// Secrets are redacted by default, by `SensitiveData.current`: the password in the URL, the values of
    /// sensitive headers (`Authorization`, cookies, API keys, session tokens), of sensitive query and form fields
    /// (`password`, `user[password]`, `access_token[]`), and of sensitive fields at any depth of a JSON body. A JSON
    /// body that does not parse is not shown, since it cannot be redacted reliably. Pass `revealingSecrets: true`
    /// only for local debugging.
    public func curlCommand(revealingSecrets: Bool = false) -> String {
        let sensitive = SensitiveData.current
        let method = httpMethod ?? "GET"
        let urlText = url?.absoluteString ?? ""
        let shownURL = revealingSecrets ? urlText : sensitive.redacting(url: urlText)
        var lines = ["curl " + (method == "GET" ? "" : "-X \(Self.shellQuoted(method)) ") + Self.shellQuoted(shownURL)]
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let shown = revealingSecrets ? value : sensitive.displayValue(value, forHeader: name)
            lines.append("-H " + Self.shellQuoted("\(name): \(shown)"))
        }
        if let body = httpBody, !body.isEmpty {
            lines.append(
                Self.bodyOption(
                    body, contentType: value(forHTTPHeaderField: "Content-Type"),
                    revealingSecrets: revealingSecrets, sensitive: sensitive))
        }
        return lines.joined(separator: " \\\n  ")
    }

    private static func bodyOption(
        _ body: Data, contentType: String?, revealingSecrets: Bool, sensitive: SensitiveData
    ) -> String {
        let type = contentType?.lowercased() ?? ""
        if !revealingSecrets && type.contains("json") {
            guard let redacted = sensitive.redacting(json: body) else {
                return "--data-binary @- # \(body.count) bytes of JSON that does not parse, not shown"
            }
            return "--data-raw " + shellQuoted(redacted)
        }
        guard let text = String(data: body, encoding: .utf8) else {
            return "--data-binary @- # \(body.count) bytes of binary data, not shown"
        }
        let isForm = type.hasPrefix("application/x-www-form-urlencoded")
        return "--data-raw " + shellQuoted(isForm && !revealingSecrets ? sensitive.redacting(formFields: text) : text)
    }

    /// Quoted for POSIX shells when needed: single quotes, with a `'` inside written as `'\''`.
    private static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && Self.shellPlain.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static let shellPlain = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./:@%+,".unicodeScalars)
}
