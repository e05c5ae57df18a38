public import Foundation
import NALSupport

extension SensitiveData {
    /// Authentication schemes (RFC 9110 §11 and the IANA registry, plus common vendor ones) that an `Authorization`
    /// value keeps in its display: they help debugging and reveal nothing.
    static let knownSchemes: Set<String> = [
        "basic", "bearer", "digest", "negotiate", "ntlm", "hoba", "mutual", "scram-sha-1", "scram-sha-256", "vapid",
        "dpop", "gnap", "privatetoken", "token", "mac", "oauth", "aws4-hmac-sha256", "concealed",
    ]

    /// Headers whose value is a URL: shown with the URL's secrets redacted, whatever their name.
    static let urlHeaderNames: Set<String> = ["location", "content-location", "referer"]

    /// The value to show for the header `name`: unchanged unless it is a secret. An `Authorization` or
    /// `Proxy-Authorization` credential with a known scheme keeps the scheme (`Bearer <redacted>`); any other
    /// sensitive value is the marker alone. `Location`, `Content-Location` and `Referer` show their URL with its
    /// secrets redacted (`https://app/cb#access_token=<redacted>`), and so do the targets of `Link` (`<…>`) and the
    /// URL of `Refresh` (`5; url=…`).
    public func displayValue(_ value: String, forHeader name: String) -> String {
        if Self.urlHeaderNames.contains(name.lowercased()) { return redacting(url: value) }
        if HTTPToken.equalsIgnoringASCIICase(name, "Link") { return redactingLinkTargets(value) }
        if HTTPToken.equalsIgnoringASCIICase(name, "Refresh") { return redactingRefreshURL(value) }
        guard isSensitiveHeader(name) else { return value }
        let lowered = name.lowercased()
        if lowered == "authorization" || lowered == "proxy-authorization",
            let space = value.firstIndex(of: " "), Self.knownSchemes.contains(value[..<space].lowercased())
        {
            return value[..<space] + " " + Self.marker
        }
        return Self.marker
    }

    /// A `Link` value with each `<target>` redacted as a URL.
    private func redactingLinkTargets(_ value: String) -> String {
        var result = ""
        var rest = value[...]
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[...open] + redacting(url: String(rest[rest.index(after: open)..<close])) + ">"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// A `Refresh` value (`5; url=https://…`) with its URL redacted.
    private func redactingRefreshURL(_ value: String) -> String {
        guard let range = value.range(of: "url=", options: .caseInsensitive) else { return value }
        return value[..<range.upperBound] + redacting(url: String(value[range.upperBound...]))
    }

    /// `url` with its secrets replaced by the marker: the password of its user information, a user name that
    /// stands alone (`https://TOKEN@host`, where tokens travel) or looks like a token, and the values of sensitive
    /// query and fragment fields, separated by `&` or `;`:
    /// `https://ada:<redacted>@host/x?token=<redacted>&page=2`.
    public func redacting(url: String) -> String {
        var result = Self.redactingUserInfo(in: url)
        guard let question = result.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return result }
        var tail = ""
        var rest = result[question...]
        while let separator = rest.first {
            let body = rest.dropFirst()
            let end = separator == "?" ? (body.firstIndex(of: "#") ?? body.endIndex) : body.endIndex
            tail += String(separator) + redacting(formFields: body[..<end], separators: "&;")
            rest = body[end...]
        }
        result = result[..<question] + tail
        return result
    }

    /// Free text (an error message from libcurl or Foundation, a log line) with every URL in it redacted as
    /// `redacting(url:)` does. A URL runs from its scheme to the next white space; quotes around it stay outside, and
    /// a quote inside its user information does not end it.
    public func redacting(urlsIn text: String) -> String {
        guard Self.schemeSeparator(in: text[...]) != nil else { return text }
        var result = ""
        var rest = text[...]
        // Linear in the text: each search starts where the last URL ended.
        while let separator = Self.schemeSeparator(in: rest) {
            var start = separator.lowerBound
            while start > rest.startIndex, Self.isSchemeCharacter(rest[rest.index(before: start)]) {
                start = rest.index(before: start)
            }
            let end = rest[separator.upperBound...].firstIndex(where: \.isWhitespace) ?? rest.endIndex
            // Closing quotes and punctuation after the URL ("for 'http://u:p@host'.") are not part of it; the
            // marker's own ">" is (text redacted once stays as it is when redacted again).
            var urlEnd = end
            while urlEnd > separator.upperBound, "'\"`.,;:)]>".contains(rest[rest.index(before: urlEnd)]),
                !rest[start..<urlEnd].hasSuffix(Self.marker)
            {
                urlEnd = rest.index(before: urlEnd)
            }
            result += rest[..<start] + redacting(url: String(rest[start..<urlEnd])) + rest[urlEnd..<end]
            rest = rest[end...]
        }
        return result + rest
    }

    /// The first "://" in `text`, found byte by byte (Foundation's `range(of:)` may copy a substring for each search).
    private static func schemeSeparator(in text: Substring) -> Range<String.Index>? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[colon...].dropFirst()
            if rest.starts(with: "//".utf8) { return colon..<bytes.index(colon, offsetBy: 3) }
            index = bytes.index(after: colon)
        }
        return nil
    }

    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    /// Form or query text (`a=1&password=x`) with the values of sensitive fields replaced by the marker.
    public func redacting(formFields text: some StringProtocol) -> String {
        redacting(formFields: text, separators: "&")
    }

    /// Splits at the separator bytes, never inside a character: a combining mark after `&` does not hide it.
    private func redacting(formFields text: some StringProtocol, separators: String) -> String {
        let separatorBytes = Set(separators.utf8)
        var result: [UInt8] = []
        var fieldStart = 0
        let bytes = Array(text.utf8)
        func flush(_ end: Int) {
            let field = bytes[fieldStart..<end]
            if let equals = field.firstIndex(of: UInt8(ascii: "=")) {
                let key = FormFields.unescaped(String(decoding: field[..<equals], as: UTF8.self))
                if isSensitiveQueryKey(key) || isSensitiveBodyField(key) {
                    result += field[...equals] + Self.marker.utf8
                    return
                }
                // A value that is itself a URL (`redirect_uri=https%3A%2F%2F…%3Ftoken%3D…`), or a document
                // (`payload=%7B%22password%22…`), has its secrets too.
                let value = FormFields.unescaped(String(decoding: field[(equals + 1)...], as: UTF8.self))
                if let redacted = redactingEmbeddedURL(value)
                    ?? redactingEmbeddedBody(value, redactingStringsWhere: nil, depth: 1)
                {
                    result +=
                        field[...equals]
                        + (redacted.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? Self.marker).utf8
                    return
                }
            }
            result += field
        }
        for (index, byte) in bytes.enumerated() where separatorBytes.contains(byte) {
            flush(index)
            result.append(byte)
            fieldStart = index + 1
        }
        flush(bytes.count)
        return String(decoding: result, as: UTF8.self)
    }

    /// JSON text with the value of every sensitive field, at any depth, replaced by `"<redacted>"`; every string
    /// that is a URL with secrets shown with them redacted, and every string that is itself a JSON document or form
    /// fields redacted the same way (a server echoing the request: httpbin's `"data": "{\"password\": …}"`);
    /// everything else is kept byte for byte. Keys are compared as JSON reads them, escapes resolved
    /// (`"pass\u0077ord"`). `nil` when `json` is not valid JSON.
    public func redacting(json: Data) -> String? {
        redacting(json: json, redactingStringsWhere: nil)
    }

    /// JSON text redacted as `redacting(json:)` does, and every string value that `test` accepts replaced whole
    /// by `"<redacted>"`: how a recorder removes secrets a server echoes back, without touching numbers or keys.
    package func redacting(json: Data, redactingStringsWhere test: ((String) -> Bool)?) -> String? {
        redacting(json: json, redactingStringsWhere: test, depth: 0)
    }

    /// How many documents inside strings inside documents are read: each level doubles the escapes, so real echoes
    /// stop at two or three.
    private static let embeddedDepth = 8

    private func redacting(json: Data, redactingStringsWhere test: ((String) -> Bool)?, depth: Int) -> String? {
        var redactor = JSONRedactor(input: Array(json), isSensitive: isSensitiveBodyField) { text in
            if let test, test(text) { return Self.marker }
            if let url = redactingEmbeddedURL(text) { return url }
            // Deeper than real echoes go: what looks like a secret's field is redacted as text would be.
            guard depth < Self.embeddedDepth else { return changedOrNil(redacting(freeText: text), text) }
            return redactingEmbeddedBody(text, redactingStringsWhere: test, depth: depth + 1)
        }
        guard let bytes = redactor.run() else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string value that is a JSON document or form fields with something to redact, redacted; `nil` otherwise.
    private func redactingEmbeddedBody(
        _ text: String, redactingStringsWhere test: ((String) -> Bool)?, depth: Int
    ) -> String? {
        let first = text.utf8.first { !JSONRedactor.isWhitespace($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            // What does not parse (NaN, a comment, cut short, JSON5) is still read for `name: value` pairs.
            guard let redacted = redacting(json: Data(text.utf8), redactingStringsWhere: test, depth: depth) else {
                return changedOrNil(redacting(freeText: text), text)
            }
            return changedOrNil(redacted, text)
        }
        if Self.looksLikeForm(text) { return changedOrNil(redacting(formFields: text), text) }
        return changedOrNil(redacting(freeText: text), text)
    }

    private func changedOrNil(_ redacted: String, _ original: String) -> String? {
        redacted == original ? nil : redacted
    }

    /// Text that is neither JSON nor a form (JSON that does not parse, a log line, JSON5, a config file) with the
    /// value after every sensitive name followed by `:` or `=` replaced by the marker: `"password": "x"`,
    /// `password=x`, `{password: 'x'}`, `\"token\":\"x\"` (inside a JSON string). One pass, linear in the text.
    package func redacting(freeText text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard Self.isNameByte(bytes[index]), index == 0 || !Self.isNameByte(bytes[index - 1]) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
            output += bytes[index..<end]
            // The name's closing quote (", ', or \" inside a JSON string), then white space, then ':' or '='.
            var next = end
            while next < bytes.count, Self.isQuoteByte(bytes[next]) || bytes[next] == UInt8(ascii: "\\") {
                next += 1
            }
            while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
            guard next < bytes.count, bytes[next] == UInt8(ascii: ":") || bytes[next] == UInt8(ascii: "="),
                isSensitiveBodyField(String(decoding: bytes[index..<end], as: UTF8.self))
            else {
                index = end
                continue
            }
            next += 1
            while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
            output += bytes[end..<next]
            // A credential header's value is several words (`Bearer token`, `a=1; b=2`): all of its line goes.
            let name = String(decoding: bytes[index..<end], as: UTF8.self).lowercased()
            index = Self.replaceValue(
                in: bytes, at: next, into: &output, toLineEnd: Self.credentialHeaderNames.contains(name))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Writes the marker in place of the value at `start`, quoted (with ", ' or an escaped quote such as \" or \\\",
    /// as documents inside strings write them) or a run up to a delimiter, keeping its quotes; returns where the
    /// value ends.
    /// Names whose unquoted value in free text runs to the end of its line.
    private static let credentialHeaderNames: Set = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    private static func replaceValue(
        in bytes: [UInt8], at start: Int, into output: inout [UInt8], toLineEnd: Bool = false
    ) -> Int {
        var quoteEnd = start
        while quoteEnd < bytes.count, bytes[quoteEnd] == UInt8(ascii: "\\") { quoteEnd += 1 }
        if quoteEnd < bytes.count, isQuoteByte(bytes[quoteEnd]) {
            let quote = Array(bytes[start...quoteEnd])
            // The same quote closes it, not one escaped once more (preceded by another backslash).
            var end = quoteEnd + 1
            while end < bytes.count {
                if bytes[end...].starts(with: quote), bytes[end - 1] != UInt8(ascii: "\\") { break }
                end += 1
            }
            output += quote + marker.utf8
            guard end < bytes.count else { return bytes.count }
            output += quote
            return end + quote.count
        }
        var end = start
        if toLineEnd {
            // To the line's end, or to where a JSON string that holds the text ends or escapes its line end.
            let stops: Set<UInt8> = [0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "\\")]
            while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
        } else {
            while end < bytes.count, !valueDelimiters.contains(bytes[end]) { end += 1 }
        }
        if end > start { output += marker.utf8 }
        return end
    }

    /// What a name of a `name: value` or `name=value` pair is made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "[")
            || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ".") || byte >= 0x80
    }

    private static func isQuoteByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    /// Where an unquoted value ends.
    private static let valueDelimiters: Set<UInt8> = Set(",;&}])\r\n\t \"'\\".utf8)

    /// A value that is a URL with a query, fragment or user information, redacted; `nil` when it is not one or
    /// holds no secret.
    func redactingEmbeddedURL(_ text: String) -> String? {
        guard text.contains("://") || (text.hasPrefix("/") && text.contains("?")) else { return nil }
        let redacted = redacting(url: text)
        return redacted == text ? nil : redacted
    }

    /// A request or response body as NAL shows it anywhere (logs, cURL output, recordings), redacted.
    public enum RedactedBody: Sendable, Equatable {
        /// Text to show: JSON or form fields redacted, other text as it is.
        case text(String)
        /// JSON by its type that does not parse, so it cannot be redacted reliably and is not shown.
        case unparsableJSON(byteCount: Int)
        /// Bytes that are not UTF-8 text.
        case binary(byteCount: Int)
    }

    /// `body` redacted by what it is: JSON when its `Content-Type` says so, or when it has none (or a text type)
    /// and parses as JSON; form fields when it is `application/x-www-form-urlencoded`, or has no type (or a text
    /// type) and reads as `key=value&…` (FoundationNetworking sends an untyped POST body as a form); a multipart
    /// body part by part, sensitive parts as the marker and parts that are not text as their size.
    public func redacting(body: Data, contentType: String?) -> RedactedBody {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/"), let boundary = contentType.flatMap(MultipartEncoder.boundary(inContentType:)),
            let redacted = redacting(multipart: body, boundary: boundary, binary: { "<\($0) bytes, not shown>" })
        {
            return .text(String(decoding: redacted, as: UTF8.self))
        }
        // A body that says multipart but is not (no delimiter of its boundary) is sniffed like an untyped one.
        let untyped =
            type.isEmpty || type.hasPrefix("text/plain") || type.hasPrefix("application/octet-stream")
            || type.hasPrefix("multipart/")
        // A byte-order mark in front of JSON is not part of it.
        let json = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
        if type.contains("json") {
            return redacting(json: Data(json)).map(RedactedBody.text) ?? .unparsableJSON(byteCount: body.count)
        }
        if untyped, let first = json.first(where: { !JSONRedactor.isWhitespace($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let redacted = redacting(json: Data(json))
        {
            return .text(redacted)
        }
        guard let text = String(data: body, encoding: .utf8) else { return .binary(byteCount: body.count) }
        if type.hasPrefix("application/x-www-form-urlencoded") || (untyped && Self.looksLikeForm(text)) {
            return .text(redacting(formFields: text))
        }
        // Other text, JSON that does not parse among it: `name: value` pairs of secrets are still redacted.
        return .text(redacting(freeText: text))
    }

    /// `a=1&b=2`: fields with `=`, nothing a form encoder would have escaped (spaces, line breaks, quotes).
    package static func looksLikeForm(_ text: String) -> Bool {
        guard text.contains("=") else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "<" && scalar != ">"
        }
    }

    /// `scheme://user:password@host` with the password replaced, and the user name too when it stands alone or
    /// looks like a token.
    private static func redactingUserInfo(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return url }
        let userInfo = url[authorityStart..<at]
        guard let colon = userInfo.firstIndex(of: ":") else {
            return userInfo.isEmpty ? url : url[..<authorityStart] + marker + url[at...]
        }
        let user = userInfo[..<colon]
        let shownUser = looksLikeToken(user) ? Substring(marker) : user
        return url[..<authorityStart] + shownUser + ":" + marker + url[at...]
    }

    /// A user name that is really a credential: a known token prefix, or long and mixing letters and digits.
    static func looksLikeToken(_ name: Substring) -> Bool {
        let lowered = name.lowercased()
        let prefixes = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-", "sk_", "akia"]
        if prefixes.contains(where: lowered.hasPrefix) { return true }
        return name.count >= 20 && name.contains(where: \.isNumber) && name.contains(where: \.isLetter)
    }
}
