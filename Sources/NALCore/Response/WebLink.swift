public import Foundation

/// One link of a `Link` header (RFC 8288): a target and its parameters, such as GitHub's pagination
/// `<https://api.github.com/user/repos?page=3>; rel="next"`.
public struct WebLink: Sendable, Equatable {
    /// The target as written between `<` and `>`: absolute, or relative to the response's URL.
    public let target: String
    /// The relation types of `rel`, in lower case (`next`, `prev`, `last`); a link can have several.
    public let relations: [String]
    /// Every parameter, names in lower case, values unquoted. The first of a repeated name wins, as RFC 8288 says.
    public let parameters: [String: String]

    /// Creates a link.
    public init(target: String, relations: [String], parameters: [String: String]) {
        self.target = target
        self.relations = relations
        self.parameters = parameters
    }

    /// The links of a `Link` header's value, in order. Links that cannot be read (no `<…>`) are skipped; quoted
    /// strings may hold `,` and `;`. Any input gives an answer, never a trap.
    public static func links(in header: String) -> [WebLink] {
        var links: [WebLink] = []
        var scanner = Substring(header)
        // Delimiters are found by scalar: a combining or prepended mark fuses `<` or `>` into a grapheme cluster that
        // is not equal to it, which let a target run past its `>`.
        while let open = scanner.firstIndex(where: { $0.unicodeScalars.contains("<") }) {
            scanner = scanner[scanner.index(after: open)...]
            guard let close = scanner.firstIndex(where: { $0.unicodeScalars.contains(">") }) else { break }
            let target = String(scanner[..<close]).trimmingCharacters(in: .whitespaces)
            scanner = scanner[scanner.index(after: close)...]
            var parameters: [String: String] = [:]
            // Parameters until the comma that ends this link, outside quotes.
            while true {
                scanner = scanner.drop { $0 == " " || $0 == "\t" }
                guard scanner.first == ";" else { break }
                scanner = scanner.dropFirst().drop { $0 == " " || $0 == "\t" }
                let name = scanner.prefix { $0 != "=" && $0 != ";" && $0 != "," }
                scanner = scanner.dropFirst(name.count)
                var value = ""
                if scanner.first == "=" {
                    scanner = scanner.dropFirst().drop { $0 == " " || $0 == "\t" }
                    (value, scanner) = Self.value(scanner)
                }
                let key = name.trimmingCharacters(in: .whitespaces).lowercased()
                if !key.isEmpty, parameters[key] == nil { parameters[key] = value }
            }
            let relations = (parameters["rel"] ?? "").lowercased().split(whereSeparator: \.isWhitespace).map(
                String.init)
            links.append(WebLink(target: target, relations: relations, parameters: parameters))
            guard let comma = scanner.firstIndex(of: ",") else { break }
            scanner = scanner[scanner.index(after: comma)...]
        }
        return links
    }

    /// A parameter value (a token, or a quoted string with `\` escapes) and what follows it.
    private static func value(_ text: Substring) -> (String, Substring) {
        guard text.first == "\"" else {
            let token = text.prefix { $0 != ";" && $0 != "," }
            return (token.trimmingCharacters(in: .whitespaces), text.dropFirst(token.count))
        }
        var value = ""
        var rest = text.dropFirst()
        var escaped = false
        while let character = rest.first {
            rest = rest.dropFirst()
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                value.append(character)
            }
        }
        return (value, rest)
    }
}

extension Response {
    /// The links of the response's `Link` headers (RFC 8288).
    public var links: [WebLink] {
        headers["Link"].map(WebLink.links(in:)) ?? []
    }

    /// The URL of the first link with the relation `relation` (`"next"` for the next page), resolved against the
    /// response's URL; `nil` when there is none.
    public func link(_ relation: String) -> URL? {
        let wanted = relation.lowercased()
        guard let link = links.first(where: { $0.relations.contains(wanted) }) else { return nil }
        return URL(string: link.target, relativeTo: httpResponse.url ?? request.url)?.absoluteURL
    }
}
