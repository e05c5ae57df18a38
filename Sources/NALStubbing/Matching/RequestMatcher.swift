public import Foundation
public import NALCore

/// Which requests a stub answers: composable predicates in the style of OHHTTPStubs, combined with `&&`, `||` and
/// `!`.
///
/// ```swift
/// server.stub(.method(.get) && .host("api.example.com") && .path("/users/{id}"), response: .json(user))
/// server.stub(.pathPrefix("/v2/") && !.hasHeader("Authorization"), response: .string("", status: 401))
/// ```
///
/// Every matcher has a specificity, used to choose between stubs that all match (see `StubServer`), and can say
/// why it does not match a request, for the unmatched-request report.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    indirect enum Node: Sendable {
        case condition(Condition)
        case all([Node])
        case any([Node])
        case not(Node)
    }

    enum Condition: Sendable {
        case method(HTTPMethod)
        case url(URL)
        case host(String)
        case path(String)
        case pathTemplate(String, segments: [Substring])
        case pathPrefix(String)
        case pathRegex(String, PathPattern)
        case query([String: String])
        case queryItems([String: String?])
        case header(String, String)
        case hasHeader(String)
        case body(Data)
        case jsonBody(ParameterValue?, source: Data)
        case formBody([String: String])
        case predicate(String, @Sendable (RecordedRequest) -> Bool)
        /// A `.tail` file's method pattern, matched against the whole method.
        case methodPattern(String, PathPattern)
        /// A `.tail` file's URL pattern, found anywhere in the absolute URL.
        case urlPattern(String, PathPattern)
        /// A HAR entry's URL: the same scheme, host, port and path, and the same query items in any order.
        case urlIgnoringQueryOrder(NormalizedURL)
    }

    let node: Node

    // MARK: Matchers

    /// The method, in any letter case for the standard methods.
    public static func method(_ method: HTTPMethod) -> RequestMatcher {
        RequestMatcher(node: .condition(.method(method)))
    }
    /// Exactly this URL, query included.
    public static func url(_ url: URL) -> RequestMatcher { RequestMatcher(node: .condition(.url(url))) }
    /// The host, in any letter case.
    public static func host(_ host: String) -> RequestMatcher {
        RequestMatcher(node: .condition(.host(host.lowercased())))
    }
    /// The path, exactly as sent (percent-encoded, a trailing slash kept: `.path("/files/a%20b")`,
    /// `.path("/users/")`); or, when it contains `{name}` segments, as a template where each placeholder stands for
    /// one non-empty segment: `/users/{id}` matches `/users/42`.
    public static func path(_ path: String) -> RequestMatcher {
        guard path.contains("{") else { return RequestMatcher(node: .condition(.path(path))) }
        return RequestMatcher(
            node: .condition(
                .pathTemplate(path, segments: path.split(separator: "/", omittingEmptySubsequences: false))))
    }
    /// A path that starts with `prefix`, compared with the percent-encoded path as sent.
    public static func pathPrefix(_ prefix: String) -> RequestMatcher {
        RequestMatcher(node: .condition(.pathPrefix(prefix)))
    }
    /// A path that the regular expression matches somewhere, in the percent-encoded path as sent; anchor it with `^`
    /// and `$` to match the whole path.
    /// An invalid pattern matches nothing, and says so in the unmatched-request report.
    public static func pathRegex(_ pattern: String) -> RequestMatcher {
        RequestMatcher(node: .condition(.pathRegex(pattern, PathPattern(pattern))))
    }
    /// A path whose last segment ends in one of `extensions`, in any letter case: `.fileExtension("png", "jpg")`
    /// matches `/avatars/ada.PNG` (Mocker's `fileExtensions`). A leading dot is dropped (`".png"` is `"png"`), as
    /// Mocker drops it; an empty extension matches nothing.
    public static func fileExtension(_ extensions: String...) -> RequestMatcher {
        let names = extensions.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
        let alternatives = names.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|")
        return pathRegex(names.isEmpty ? "(?!)" : "(?i)\\.(\(alternatives))$")
    }

    /// A query that holds at least these items, unescaped. An item without `=` (`?flag`) has the value `""` here;
    /// use `queryItems(_:)` to tell it from `?flag=`.
    public static func query(_ items: [String: String]) -> RequestMatcher {
        RequestMatcher(node: .condition(.query(items)))
    }
    /// A query that holds at least these items, unescaped, where a `nil` value means the item has no `=` (`?flag`)
    /// and `""` means an empty value (`?flag=`): OHHTTPStubs' `containsQueryParams`.
    public static func queryItems(_ items: [String: String?]) -> RequestMatcher {
        RequestMatcher(node: .condition(.queryItems(items)))
    }
    /// A header with exactly this value; the name in any letter case.
    public static func header(_ name: String, _ value: String) -> RequestMatcher {
        RequestMatcher(node: .condition(.header(name, value)))
    }
    /// A header with any value.
    public static func hasHeader(_ name: String) -> RequestMatcher {
        RequestMatcher(node: .condition(.hasHeader(name)))
    }
    /// Exactly these body bytes.
    public static func body(_ body: Data) -> RequestMatcher { RequestMatcher(node: .condition(.body(body))) }
    /// A body that is the same JSON value as `json`, whatever the key order and whitespace.
    public static func jsonBody(_ json: Data) -> RequestMatcher {
        RequestMatcher(
            node: .condition(.jsonBody(try? JSONDecoder().decode(ParameterValue.self, from: json), source: json)))
    }
    /// A form body (`application/x-www-form-urlencoded`) that holds at least these fields, unescaped.
    public static func formBody(_ fields: [String: String]) -> RequestMatcher {
        RequestMatcher(node: .condition(.formBody(fields)))
    }
    /// Any test of your own; `description` names it in reports.
    public static func predicate(
        _ description: String = "predicate", _ test: @escaping @Sendable (RecordedRequest) -> Bool
    ) -> RequestMatcher {
        RequestMatcher(node: .condition(.predicate(description, test)))
    }
    /// Every request.
    public static var any: RequestMatcher { RequestMatcher(node: .all([])) }

    /// This URL, with its query items in any order: how HAR entries are matched.
    public static func urlIgnoringQueryOrder(_ url: URL) -> RequestMatcher {
        RequestMatcher(node: .condition(.urlIgnoringQueryOrder(NormalizedURL(url))))
    }

    /// Both must match.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(node: .all(lhs.conjuncts + rhs.conjuncts))
    }
    /// Either must match.
    public static func || (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(node: .any([lhs.node, rhs.node]))
    }
    /// Must not match.
    public static prefix func ! (matcher: RequestMatcher) -> RequestMatcher {
        RequestMatcher(node: .not(matcher.node))
    }

    private var conjuncts: [Node] {
        if case .all(let nodes) = node { return nodes }
        return [node]
    }

    // MARK: Evaluation

    /// Whether `request` matches.
    public func matches(_ request: RecordedRequest) -> Bool {
        Self.evaluate(node, request)
    }

    static func evaluate(_ node: Node, _ request: RecordedRequest) -> Bool {
        switch node {
        case .condition(let condition): condition.matches(request)
        case .all(let nodes): nodes.allSatisfy { evaluate($0, request) }
        case .any(let nodes): nodes.contains { evaluate($0, request) }
        case .not(let inner): !evaluate(inner, request)
        }
    }

    /// For each part of this matcher, whether it matched and why: `path /users/{id} matched`,
    /// `header X-Api-Key missing`.
    func explain(_ request: RecordedRequest) -> [(matched: Bool, reason: String)] {
        conjuncts.map { node in
            let matched = Self.evaluate(node, request)
            guard case .condition(let condition) = node else {
                return (matched, "\(Self.describe(node)) \(matched ? "matched" : "did not match")")
            }
            return (matched, matched ? "\(condition) matched" : condition.mismatch(request))
        }
    }

    /// How specific the matcher is: higher wins when several stubs match. An exact URL beats a method, host and
    /// path, which beat a template, which beats a prefix; every further condition adds a little.
    var specificity: Int { Self.specificity(node) }

    static func specificity(_ node: Node) -> Int {
        switch node {
        case .condition(let condition): condition.specificity
        case .all(let nodes): nodes.reduce(0) { $0 + specificity($1) }
        case .any(let nodes): nodes.map(specificity).min() ?? 0
        case .not: 1
        }
    }

    /// Breaks ties of specificity between stubs of the same kind: the length of their URL patterns, so that of
    /// several `.tail` files the longest URL pattern wins.
    var refinement: Int {
        conjuncts.reduce(0) { total, node in
            guard case .condition(.urlPattern(let pattern, _)) = node else { return total }
            return total + pattern.count
        }
    }

    /// A piece of the URL (text between two `/`, in lower case) that every URL this matcher accepts contains, for
    /// the stub index: taken from the literal start of a `.tail` URL pattern, up to its first regular-expression
    /// character. The deepest piece is chosen: in `/api/v1/items/42/detail` that is `42`, which few other files
    /// share. A pattern with an alternation (`|`) or a group has no required piece: its branches need not share
    /// one, so it is tried on every request, and the index gives the same answer as trying every stub.
    var requiredURLPiece: String? {
        for node in conjuncts {
            guard case .condition(.urlPattern(let pattern, _)) = node else { continue }
            guard !pattern.contains("|"), !pattern.contains("(") else { return nil }
            let special = Set("\\^$.|?*+()[]{}")
            var literal = pattern.prefix { !special.contains($0) }
            // A quantifier after the literal (`/?`, `s*`, `x{0,1}`) makes its last character optional.
            if let next = pattern.dropFirst(literal.count).first, "?*{".contains(next) { literal = literal.dropLast() }
            // Only pieces with a `/` on both sides must appear whole in the URL.
            let pieces = literal.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropLast()
            if let deepest = pieces.last(where: { !$0.isEmpty }) { return deepest.lowercased() }
        }
        return nil
    }

    /// The method, host and exact path this matcher requires, when it requires all three: the key of the server's
    /// index, so that such stubs are found without scanning the others.
    var indexKey: StubIndexKey? {
        var method: String?
        var host: String?
        var path: String?
        for node in conjuncts {
            guard case .condition(let condition) = node else { continue }
            switch condition {
            case .method(let value): method = value.rawValue
            case .host(let value): host = value
            case .path(let value): path = value
            case .url(let url):
                host = url.host?.lowercased()
                path = NormalizedURL.path(of: url)
            case .urlIgnoringQueryOrder(let url):
                host = url.host
                path = url.path
            default: continue
            }
        }
        guard let method, let host, let path else { return nil }
        return StubIndexKey(method: method, host: host, path: path)
    }

    /// The origins (`https://api.example.com`) this matcher's URL and host conditions name: a listener without an
    /// origin of its own tries them in turn, so that stubs written for another origin answer on its socket.
    var namedOrigins: [String] {
        var found: [String] = []
        func walk(_ node: Node) {
            switch node {
            case .condition(.url(let url)):
                if let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() {
                    found.append(Self.origin(scheme: scheme, host: host, port: url.port))
                }
            case .condition(.urlIgnoringQueryOrder(let url)):
                found.append(Self.origin(scheme: url.scheme, host: url.host, port: url.port))
            case .condition(.host(let host)): found.append(Self.origin(scheme: "http", host: host, port: nil))
            case .condition(.urlPattern(let pattern, _)):
                if let origin = Self.literalOrigin(of: pattern) { found.append(origin) }
            case .condition, .not: break
            case .all(let nodes), .any(let nodes): nodes.forEach(walk)
            }
        }
        walk(node)
        return found
    }

    /// The origin a URL pattern spells out literally at its start (`^https://www\.google\.com/images/.*`, as
    /// `nal-cli stubs import-har` writes them), or `nil` when its scheme and host are not literal.
    static func literalOrigin(of pattern: String) -> String? {
        var literal = ""
        var characters = Substring(pattern.hasPrefix("^") ? String(pattern.dropFirst()) : pattern).makeIterator()
        while let character = characters.next() {
            if character == "\\" {
                // An escaped `.`, `/`, `:` or `-` stands for itself; any other escape ends the literal part.
                guard let escaped = characters.next(), "./:-".contains(escaped) else { break }
                literal.append(escaped)
            } else if "^$.|?*+()[]{}".contains(character) {
                break
            } else {
                literal.append(character)
            }
        }
        guard let schemeEnd = literal.range(of: "://"),
            literal[schemeEnd.upperBound...].contains("/"),
            let url = URL(string: literal), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        return origin(scheme: scheme, host: host, port: url.port)
    }

    /// `scheme://host[:port]`, an IPv6 address in brackets.
    static func origin(scheme: String, host: String, port: Int?) -> String {
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)" + (port.map { ":\($0)" } ?? "")
    }

    /// `method GET && host api.example.com && path /users/{id}`.
    public var description: String { Self.describe(node) }

    static func describe(_ node: Node) -> String {
        switch node {
        case .condition(let condition): "\(condition)"
        case .all(let nodes): nodes.isEmpty ? "any request" : nodes.map(describe).joined(separator: " && ")
        case .any(let nodes): "(" + nodes.map(describe).joined(separator: " || ") + ")"
        case .not(let inner): "!(\(describe(inner)))"
        }
    }
}
