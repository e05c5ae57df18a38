import NALSupport

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
    ///
    /// An upload's body, which a transport streams rather than keeping in `httpBody`, shows when `upload` is given
    /// (`TransportContext.kind` has it): bytes as for any body, a file as `--data-binary @path`, and a multipart
    /// form as curl's own `-F` options (curl then writes the boundary, so the Content-Type header is left out).
    public func curlCommand(revealingSecrets: Bool = false, upload: UploadSource? = nil) -> String {
        let sensitive = SensitiveData.current
        let method = httpMethod ?? "GET"
        let urlText = url?.absoluteString ?? ""
        let shownURL = revealingSecrets ? urlText : sensitive.redacting(url: urlText)
        var lines = ["curl " + (method == "GET" ? "" : "-X \(Self.shellQuoted(method)) ") + Self.shellQuoted(shownURL)]
        var isMultipart = false
        if case .multipart? = upload { isMultipart = true }
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            if isMultipart && HTTPToken.equalsIgnoringASCIICase(name, "Content-Type") { continue }
            let shown = revealingSecrets ? value : sensitive.displayValue(value, forHeader: name)
            lines.append("-H " + Self.shellQuoted("\(name): \(shown)"))
        }
        let contentType = value(forHTTPHeaderField: "Content-Type")
        switch upload {
        case .data(let body)? where !body.isEmpty:
            lines.append(
                Self.bodyOption(
                    body, contentType: contentType, revealingSecrets: revealingSecrets, sensitive: sensitive))
        case .file(let file)?:
            lines.append("--data-binary " + Self.shellQuoted("@" + file.path))
        case .multipart(let parts)?:
            lines += parts.map { Self.formOption($0, revealingSecrets: revealingSecrets, sensitive: sensitive) }
        case .data?, nil:
            if let body = httpBody, !body.isEmpty {
                lines.append(
                    Self.bodyOption(
                        body, contentType: contentType, revealingSecrets: revealingSecrets, sensitive: sensitive))
            }
        }
        return lines.joined(separator: " \\\n  ")
    }

    /// One multipart part as curl's `-F`: `name=value` for text, `name=@path;filename=…;type=…` for a file.
    private static func formOption(
        _ part: MultipartFormBodyPart, revealingSecrets: Bool, sensitive: SensitiveData
    ) -> String {
        // curl reads `;`, `,` and `"` in -F values as syntax; names with them are rare enough to show as they are.
        var attributes = ""
        if let fileName = part.fileName { attributes += ";filename=\(fileName)" }
        if let mimeType = part.mimeType { attributes += ";type=\(mimeType)" }
        switch part.provider {
        case .file(let url):
            return "-F " + shellQuoted("\(part.name)=@\(url.path)\(attributes)")
        case .data(let data):
            guard part.fileName == nil, let text = String(data: data, encoding: .utf8) else {
                return "-F " + shellQuoted("\(part.name)=@-\(attributes)") + " # \(data.count) bytes, not shown"
            }
            let shown = !revealingSecrets && sensitive.isSensitiveBodyField(part.name) ? SensitiveData.marker : text
            return "--form-string " + shellQuoted("\(part.name)=\(shown)")
        }
    }

    private static func bodyOption(
        _ body: Data, contentType: String?, revealingSecrets: Bool, sensitive: SensitiveData
    ) -> String {
        let shown: SensitiveData.RedactedBody
        if revealingSecrets {
            shown = String(data: body, encoding: .utf8).map { .text($0) } ?? .binary(byteCount: body.count)
        } else {
            shown = sensitive.redacting(body: body, contentType: contentType)
        }
        switch shown {
        case .text(let text): return "--data-raw " + shellQuoted(text)
        case .unparsableJSON(let count):
            return "--data-binary @- # \(count) bytes of JSON that does not parse, not shown"
        case .binary(let count): return "--data-binary @- # \(count) bytes of binary data, not shown"
        }
    }

    /// Quoted for POSIX shells when needed: single quotes, with a `'` inside written as `'\''`.
    private static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && Self.shellPlain.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static let shellPlain = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./:@%+,".unicodeScalars)
}

extension RemoteService {
    /// A `curl` command line for this endpoint, as `URLRequest.curlCommand` renders it, with an upload's body:
    /// bytes, `--data-binary @path` for a file, `-F` options for a multipart form. Secrets are redacted unless
    /// `revealingSecrets` is set.
    public func curlCommand(revealingSecrets: Bool = false) throws(NALError) -> String {
        let prepared = try preparedRequest()
        guard case .upload(let source) = prepared.kind else {
            return prepared.request.curlCommand(revealingSecrets: revealingSecrets)
        }
        return prepared.request.curlCommand(revealingSecrets: revealingSecrets, upload: source)
    }
}
