#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension URLRequest {
    /// A `curl` command line that sends this request, one option per line.
    ///
    /// Secrets are redacted by default: the values of `Authorization`, cookies, API-key headers and token query
    /// parameters (see `SensitiveHeaders`). Pass `revealingSecrets: true` only for local debugging.
    public func curlCommand(revealingSecrets: Bool = false) -> String {
        let method = httpMethod ?? "GET"
        let urlText = url?.absoluteString ?? ""
        let shownURL = revealingSecrets ? urlText : SensitiveHeaders.redactingQuery(of: urlText)
        var lines = ["curl " + (method == "GET" ? "" : "-X \(Self.shellQuoted(method)) ") + Self.shellQuoted(shownURL)]
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let shown = revealingSecrets ? value : SensitiveHeaders.displayValue(value, forName: name)
            lines.append("-H " + Self.shellQuoted("\(name): \(shown)"))
        }
        if let body = httpBody, !body.isEmpty {
            let isForm =
                value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true
            if let text = String(data: body, encoding: .utf8) {
                let shown = isForm && !revealingSecrets ? SensitiveHeaders.redactingFormFields(of: text) : text
                lines.append("--data-raw " + Self.shellQuoted(shown))
            } else {
                lines.append("--data-binary @- # \(body.count) bytes of binary data, not shown")
            }
        }
        return lines.joined(separator: " \\\n  ")
    }

    /// Quoted for POSIX shells when needed: single quotes, with a `'` inside written as `'\''`.
    private static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && Self.shellPlain.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static let shellPlain = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./:@%+,".unicodeScalars)
}
