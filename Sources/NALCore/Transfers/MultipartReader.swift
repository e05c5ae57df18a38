package import Foundation

/// Splits a `multipart/*` body (RFC 2046 §5.1) into its parts, keeping every byte: the preamble, each part's
/// delimiter line, head and content, and the epilogue, so that a caller can rewrite some contents (redaction) and
/// put the body back together byte for byte otherwise.
///
/// Lenient as readers of what people send must be: a line break may be CRLF or LF, a part without a blank line
/// after its head is all head, a body cut before its closing delimiter ends with its last part.
package struct MultipartReader: Sendable {
    /// One part: `delimiter` (the line break before it, `--boundary` and the rest of its line), `head`, the blank
    /// line, then `content`.
    package struct Part: Sendable {
        /// From the line break before the delimiter through the end of the delimiter's line.
        package var delimiter: Data
        /// The header lines, with the blank line that ends them.
        package var head: Data
        /// The part's bytes.
        package var content: Data
        /// The `name` parameter of the part's `Content-Disposition`.
        package var name: String?
        /// The `filename` parameter of the part's `Content-Disposition`.
        package var fileName: String?
        /// The part's `Content-Type`.
        package var contentType: String?
    }

    /// Bytes before the first delimiter.
    package var preamble: Data
    package var parts: [Part]
    /// The closing delimiter and anything after it; empty when the body was cut short.
    package var epilogue: Data

    /// The parts of `body`, or `nil` when no line of it is a delimiter of `boundary`.
    package init?(_ body: Data, boundary: String) {
        guard !boundary.isEmpty, boundary.utf8.count <= 200 else { return nil }
        let bytes = [UInt8](body)
        let dashes = Array("--\(boundary)".utf8)
        var starts = Self.delimiterStarts(bytes, dashes)
        guard let first = starts.first else { return nil }
        preamble = Data(bytes[..<first.lineBreak])
        parts = []
        epilogue = Data()
        starts.append((bytes.count, bytes.count))
        for (current, next) in zip(starts, starts.dropFirst()) {
            let afterDashes = current.dashes + dashes.count
            if bytes[afterDashes...].starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) {
                epilogue = Data(bytes[current.lineBreak...])
                break
            }
            let lineEnd = bytes[afterDashes..<next.lineBreak].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
            guard let lineEnd else {
                // A delimiter line that never ends: nothing of a part follows it.
                epilogue = Data(bytes[current.lineBreak...])
                break
            }
            parts.append(Self.part(bytes, delimiter: current.lineBreak..<lineEnd, end: next.lineBreak))
        }
    }

    /// The body again, with the parts as they are now.
    package var data: Data {
        var result = preamble
        for part in parts { result += part.delimiter + part.head + part.content }
        return result + epilogue
    }

    /// Where each delimiter line starts: at the start of the body or after a line break (`lineBreak` is where the
    /// CRLF or LF before it starts), `--boundary` followed by `--`, white space or a line break.
    private static func delimiterStarts(_ bytes: [UInt8], _ dashes: [UInt8]) -> [(lineBreak: Int, dashes: Int)] {
        var found: [(lineBreak: Int, dashes: Int)] = []
        var index = 0
        while let range = bytes[index...].firstRange(of: dashes) {
            index = range.lowerBound + 1
            let start = range.lowerBound
            let lineBreak: Int
            if start == 0 {
                lineBreak = 0
            } else if bytes[start - 1] == UInt8(ascii: "\n") {
                lineBreak = start >= 2 && bytes[start - 2] == UInt8(ascii: "\r") ? start - 2 : start - 1
            } else {
                continue
            }
            let after = range.upperBound < bytes.count ? bytes[range.upperBound] : UInt8(ascii: "\n")
            guard [UInt8(ascii: "-"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), 0x20, 0x09].contains(after),
                lineBreak >= (found.last.map { $0.dashes + dashes.count } ?? 0)
            else { continue }
            found.append((lineBreak, start))
            index = range.upperBound
        }
        return found
    }

    private static func part(_ bytes: [UInt8], delimiter: Range<Int>, end: Int) -> Part {
        let body = bytes[delimiter.upperBound..<end]
        var headEnd = body.endIndex
        if body.starts(with: [UInt8(ascii: "\r"), UInt8(ascii: "\n")]) {
            headEnd = body.startIndex + 2
        } else if body.first == UInt8(ascii: "\n") {
            headEnd = body.startIndex + 1
        } else if let blank = body.firstRange(of: Array("\r\n\r\n".utf8)) {
            headEnd = blank.upperBound
        } else if let blank = body.firstRange(of: Array("\n\n".utf8)) {
            headEnd = blank.upperBound
        }
        let head = String(decoding: body[..<headEnd], as: UTF8.self)
        var part = Part(
            delimiter: Data(bytes[delimiter]), head: Data(body[..<headEnd]), content: Data(body[headEnd...]))
        // Lines end at CR or LF only: a name may hold other characters Unicode calls newlines (VT, FF, U+2028).
        for line in head.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() {
            case "content-disposition":
                let parameters = Self.parameters(value)
                part.name = parameters["name"]
                part.fileName = parameters["filename"]
            case "content-type":
                part.contentType = value
            default:
                continue
            }
        }
        return part
    }

    /// The parameters of a header value (`form-data; name="a;b"; filename=x`), quoted strings read with their
    /// backslash escapes; names in lower case, the first of each kept.
    package static func parameters(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = Substring(value).unicodeScalars[...]
        // Skip the value before the first parameter.
        while let first = scalars.first, first != ";" { scalars.removeFirst() }
        while !scalars.isEmpty {
            scalars.removeFirst()  // ";"
            while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
            var name = ""
            while let first = scalars.first, first != "=", first != ";" {
                name.unicodeScalars.append(first)
                scalars.removeFirst()
            }
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            var parameter = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let first = scalars.popFirst(), first != "\"" {
                    if first == "\\", let escaped = scalars.popFirst() {
                        parameter.unicodeScalars.append(escaped)
                    } else {
                        parameter.unicodeScalars.append(first)
                    }
                }
                while let first = scalars.first, first != ";" { scalars.removeFirst() }
            } else {
                while let first = scalars.first, first != ";" {
                    parameter.unicodeScalars.append(first)
                    scalars.removeFirst()
                }
                parameter = parameter.trimmingCharacters(in: .whitespaces)
            }
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if result[key] == nil { result[key] = parameter }
        }
        return result
    }
}
