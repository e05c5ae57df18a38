package import Foundation
import NALCore
import NALSupport

/// One Mocktail `.tail` file, parsed and checked once at load:
///
/// ```
/// GET                        line 1: a regular expression for the method (the whole method)
/// .*/users/[0-9]+$           line 2: a regular expression for the URL (found anywhere in it)
/// 200                        line 3: the status
/// Content-Type: application/json
///                            headers until a blank line
/// {"name": "{{ name }}"}     the body; {{ name }} is filled from the placeholders
/// ```
///
/// Line 4 may also be a bare content type, as in objc-mocktail's original format (`application/json`, then a blank
/// line). Both patterns match in any letter case, as objc-mocktail and OHHTTPStubs match them. A `Content-Type`
/// that ends in `;base64` marks a base64 body, decoded here, once. A header repeated (in any letter case) joins the
/// first with `, `, as HTTP combines repeated fields. Unlike Mocktail, CRLF files, header values with
/// `:` and placeholders that nothing fills (an error, not a silent `{{x}}`) are handled.
package struct TailFile: Sendable {
    let file: URL
    package let methodPattern: String
    package let urlPattern: String
    package let response: StubResponse

    /// The matcher that serves this file: its method and URL patterns.
    var matcher: RequestMatcher {
        RequestMatcher(
            node: .all([
                .condition(.methodPattern(methodPattern, PathPattern("^(?:\(methodPattern))$", caseInsensitive: true))),
                .condition(.urlPattern(urlPattern, PathPattern(urlPattern, caseInsensitive: true))),
            ]))
    }

    /// Reads and parses `file`.
    init(contentsOf file: URL, placeholders: [String: String]) throws(FixtureError) {
        try self.init(try FixtureError.contents(of: file), file: file, placeholders: placeholders)
    }

    /// Parses `data`, the contents of `file`; every problem is a `FixtureError` with its line.
    package init(_ data: Data, file: URL, placeholders: [String: String]) throws(FixtureError) {
        self.file = file
        var lines = LineReader(data)
        func fail(_ line: Int, _ message: String, column: Int? = nil) -> FixtureError {
            FixtureError(file: file, line: line, column: column, message: message)
        }
        guard let method = lines.next(), !method.text.isEmpty else {
            throw fail(1, "expected a method pattern (such as GET) on line 1")
        }
        if method.text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw fail(1, "the method pattern holds a control character (a stray CR?)")
        }
        guard PathPattern("^(?:\(method.text))$").expression != nil else {
            throw fail(1, "the method pattern '\(method.text)' is not a valid regular expression")
        }
        guard let url = lines.next(), !url.text.isEmpty else {
            throw fail(2, "expected a URL pattern on line 2")
        }
        if url.text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw fail(2, "the URL pattern holds a control character (a stray CR?)")
        }
        guard PathPattern(url.text).expression != nil else {
            throw fail(2, "the URL pattern '\(url.text)' is not a valid regular expression")
        }
        guard let statusLine = lines.next() else { throw fail(3, "expected a status code on line 3") }
        guard let status = Int(statusLine.text.trimmingCharacters(in: .whitespaces)), (100...599).contains(status)
        else {
            throw fail(3, "the status '\(statusLine.text)' is not a number from 100 to 599")
        }
        var headers: [String: String] = [:]
        while let line = lines.next(), !line.text.isEmpty {
            guard let colon = line.text.firstIndex(of: ":") else {
                // objc-mocktail's original format: line 4 is the content type alone.
                if line.number == 4, line.text.contains("/"), !line.text.contains(where: \.isWhitespace),
                    HTTPToken.problem(inValue: line.text) == nil
                {
                    headers["Content-Type"] = line.text
                    continue
                }
                throw fail(line.number, "the header line '\(line.text)' has no ':'; end the headers with a blank line")
            }
            let name = line.text[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line.text[line.text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard HTTPToken.isValid(name) else {
                throw fail(line.number, "'\(name)' is not a valid header name")
            }
            if let problem = HTTPToken.problem(inValue: value) {
                throw fail(line.number, "the value of header '\(name)' \(problem)")
            }
            // A repeated field joins the first, as HTTP combines them (RFC 9110 §5.3), whatever its letter case;
            // empty list elements are dropped, as the list syntax says (§5.6.1), so the result reads back the same.
            if let key = headers.headerKey(name), let first = headers[key] {
                headers[key] = first.isEmpty ? value : value.isEmpty ? first : first + ", " + value
            } else {
                headers[name] = value
            }
        }
        var body = lines.rest
        let bodyLine = lines.lineNumber + 1
        let typeKey = headers.headerKey("Content-Type")
        if let typeKey, let type = headers[typeKey], type.lowercased().hasSuffix(";base64") {
            // `image/png ;base64` is `image/png`: the space before a parameter is not part of the type, and a header
            // value read from its line has no trailing space either.
            headers[typeKey] = String(type.dropLast(";base64".count)).trimmingCharacters(in: .whitespaces)
            let text = String(decoding: body, as: UTF8.self).filter { !$0.isWhitespace }
            guard let decoded = Data(base64Encoded: text) else {
                throw fail(bodyLine, "the body is marked ;base64 but is not valid base64")
            }
            body = decoded
        } else {
            body = try Self.fill(body, placeholders, from: bodyLine) { line, message in fail(line, message) }
        }
        methodPattern = method.text
        urlPattern = url.text
        response = StubResponse(status: status, headers: headers, body: body)
    }

    /// `body` with every `{{ name }}` replaced; a name without a value is an error at its line.
    private static func fill(
        _ body: Data, _ placeholders: [String: String], from firstLine: Int,
        _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) -> Data {
        guard body.firstRange(of: Data("{{".utf8)) != nil else { return body }
        guard let text = String(data: body, encoding: .utf8) else {
            throw fail(
                firstLine,
                "the body contains '{{' but is not UTF-8 text, so its placeholders cannot be filled; save it as UTF-8, "
                    + "or mark the Content-Type ;base64 and encode the body")
        }
        var result = ""
        var rest = text[...]
        var line = firstLine
        while let open = rest.range(of: "{{") {
            let before = rest[..<open.lowerBound]
            line += before.count { $0 == "\n" }
            result += before
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw fail(line, "a placeholder opens with '{{' but never closes with '}}'")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard let value = placeholders[name] else {
                let known = placeholders.keys.sorted().joined(separator: ", ")
                throw fail(
                    line,
                    "the placeholder '\(name)' has no value; pass it in placeholders (given: \(known.isEmpty ? "none" : known))"
                )
            }
            result += value
            rest = rest[close.upperBound...]
        }
        result += rest
        return Data(result.utf8)
    }
}

/// Reads lines of a file (LF or CRLF) and then hands over the rest as bytes.
private struct LineReader {
    private let data: Data
    private var offset: Data.Index
    private(set) var lineNumber = 0

    init(_ data: Data) {
        // A UTF-8 byte-order mark is not part of the first line.
        let bom = Data([0xEF, 0xBB, 0xBF])
        self.data = data
        offset = data.starts(with: bom) ? data.startIndex + 3 : data.startIndex
    }

    /// The next line without its line ending, or `nil` at the end of the file.
    mutating func next() -> (text: String, number: Int)? {
        guard offset < data.endIndex else { return nil }
        let end = data[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
        var line = data[offset..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        offset = end < data.endIndex ? end + 1 : end
        lineNumber += 1
        return (String(decoding: line, as: UTF8.self), lineNumber)
    }

    /// Everything after the lines read so far.
    var rest: Data { Data(data[offset...]) }
}
