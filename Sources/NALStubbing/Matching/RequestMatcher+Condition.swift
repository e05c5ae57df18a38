import Foundation
import NALCore
import NALSupport

extension RequestMatcher.Condition: CustomStringConvertible {
    func matches(_ request: RecordedRequest) -> Bool {
        switch self {
        case .method(let method): return request.method == method.rawValue
        case .url(let url): return request.url.absoluteString == url.absoluteString
        case .host(let host): return request.url.host?.lowercased() == host
        case .path(let path): return request.path == path
        case .pathTemplate(_, let segments): return Self.matchesTemplate(segments, request.path)
        case .pathPrefix(let prefix): return request.path.hasPrefix(prefix)
        case .pathRegex(_, let pattern): return pattern.matches(request.path)
        case .query(let items):
            let actual = request.queryItems
            return items.allSatisfy { actual[$0.key] == $0.value }
        case .queryItems(let items):
            let actual = request.queryItemValues
            return items.allSatisfy { name, value in actual[name].map { $0 == value } ?? false }
        case .header(let name, let value): return request.header(name) == value
        case .hasHeader(let name): return request.header(name) != nil
        case .body(let body): return request.body == body
        case .jsonBody(let expected, _):
            guard let expected else { return false }
            return (try? JSONDecoder().decode(ParameterValue.self, from: request.body)) == expected
        case .formBody(let fields):
            let actual = Self.formFields(request.body)
            return fields.allSatisfy { actual[$0.key] == $0.value }
        case .predicate(_, let test): return test(request)
        case .methodPattern(_, let pattern): return pattern.matches(request.method)
        case .urlPattern(_, let pattern): return pattern.matches(request.url.absoluteString)
        case .urlIgnoringQueryOrder(let url): return url.accepts(NormalizedURL(request.url))
        }
    }

    /// Why `request` does not match, in the words of the unmatched-request report.
    func mismatch(_ request: RecordedRequest) -> String {
        switch self {
        case .method(let method): return "method \(method.rawValue) expected, got \(request.method)"
        case .url(let url): return "URL \(DisplayText.url(url)) expected, got \(DisplayText.url(request.url))"
        case .host(let host): return "host \(host) expected, got \(request.url.host ?? "none")"
        case .path, .pathTemplate, .pathPrefix, .pathRegex: return "\(self) did not match \(request.path)"
        case .query(let items):
            let actual = request.queryItems
            let missing = items.keys.sorted().filter { actual[$0] == nil }
            let wrong = items.keys.sorted().filter { actual[$0] != nil && actual[$0] != items[$0] }
            return "query " + (missing.map { "\($0) missing" } + wrong.map { "\($0) differs" }).joined(separator: ", ")
        case .queryItems(let items):
            let actual = request.queryItemValues
            let missing = items.keys.sorted().filter { actual[$0] == nil }
            let wrong = items.keys.sorted().filter { name in actual[name].map { $0 != items[name] } ?? false }
            return "query " + (missing.map { "\($0) missing" } + wrong.map { "\($0) differs" }).joined(separator: ", ")
        case .header(let name, _):
            return request.header(name) == nil ? "header \(name) missing" : "header \(name) has another value"
        case .hasHeader(let name): return "header \(name) missing"
        case .body: return "body differs (\(request.body.count) bytes)"
        case .jsonBody(let expected, _):
            return expected == nil ? "the expected JSON body does not parse" : "JSON body differs"
        case .formBody(let fields):
            let actual = Self.formFields(request.body)
            let missing = fields.keys.sorted().filter { actual[$0] == nil }
            return missing.isEmpty
                ? "form fields differ" : "form " + missing.map { "\($0) missing" }.joined(separator: ", ")
        case .predicate(let name, _): return "\(name) returned false"
        case .methodPattern(let pattern, _): return "method pattern \(pattern) did not match \(request.method)"
        case .urlPattern(let pattern, _):
            return "URL pattern \(pattern) did not match \(DisplayText.url(request.url))"
        case .urlIgnoringQueryOrder(let url):
            return "URL \(DisplayText.url(url.description)) expected, got \(DisplayText.url(request.url))"
        }
    }

    var specificity: Int {
        switch self {
        case .url, .urlIgnoringQueryOrder: 1_000
        case .urlPattern: 40
        case .methodPattern: 5
        case .path: 100
        case .pathTemplate(_, let segments): 60 + segments.filter { !$0.hasPrefix("{") }.count
        case .pathRegex: 40
        case .pathPrefix(let prefix): 20 + min(prefix.count, 19)
        case .host: 10
        case .method: 5
        case .query(let items): 3 * items.count
        case .queryItems(let items): 3 * items.count
        case .formBody(let fields): 3 * fields.count
        case .header, .hasHeader, .body, .jsonBody, .predicate: 3
        }
    }

    var description: String {
        switch self {
        case .method(let method): "method \(method.rawValue)"
        case .url(let url): "url \(DisplayText.url(url))"
        case .host(let host): "host \(host)"
        case .path(let path): "path \(path)"
        case .pathTemplate(let template, _): "path \(template)"
        case .pathPrefix(let prefix): "path prefix \(prefix)"
        case .pathRegex(let pattern, let compiled):
            compiled.expression == nil ? "invalid path regex \(pattern)" : "path regex \(pattern)"
        case .query(let items):
            "query " + items.keys.sorted().map { Self.shownQueryItem($0, items[$0]) }.joined(separator: "&")
        case .queryItems(let items):
            "query " + items.keys.sorted().map { Self.shownQueryItem($0, items[$0] ?? nil) }.joined(separator: "&")
        case .header(let name, let value):
            "header \(name): \(SensitiveData.current.displayValue(value, forHeader: name))"
        case .hasHeader(let name): "header \(name) present"
        case .body(let body): "body of \(body.count) bytes"
        case .jsonBody(_, let source): "JSON body of \(source.count) bytes"
        case .formBody(let fields): "form " + fields.keys.sorted().joined(separator: ", ")
        case .predicate(let name, _): name
        case .methodPattern(let pattern, _): "method pattern \(pattern)"
        case .urlPattern(let pattern, _): "URL pattern \(pattern)"
        case .urlIgnoringQueryOrder(let url): "url \(DisplayText.url(url.description)) (query in any order)"
        }
    }

    /// `name=value` as reports show it: the value of a sensitive name redacted, `name` alone for a value-less item.
    static func shownQueryItem(_ name: String, _ value: String?) -> String {
        guard let value else { return name }
        return "\(name)=\(SensitiveData.current.isSensitiveQueryKey(name) ? SensitiveData.marker : value)"
    }

    static func matchesTemplate(_ template: [Substring], _ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == template.count else { return false }
        return zip(template, segments).allSatisfy { pattern, segment in
            pattern.hasPrefix("{") && pattern.hasSuffix("}") ? !segment.isEmpty : pattern == segment
        }
    }

    /// Fields of a form body, unescaped (`+` is a space); a repeated field keeps its first value.
    static func formFields(_ body: Data) -> [String: String] {
        FormFields.dictionary(in: String(decoding: body, as: UTF8.self))
    }
}
