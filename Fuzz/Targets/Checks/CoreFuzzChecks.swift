package import Foundation
import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Properties of NALCore's parsers and encoders over arbitrary input, for the fuzz targets in `Fuzz/` (and their
/// regression tests). Each throws `FuzzFailure` when a property breaks; none may trap on any input.
package enum CoreFuzzChecks {
    /// `Content-Range`: a parsed range is ordered and inside its total, and reads back the same when written again.
    package static func contentRange(_ data: Data) throws(FuzzFailure) {
        guard let range = ContentRange(String(decoding: data, as: UTF8.self)) else { return }
        let total = range.total.map(String.init) ?? "*"
        let written: String
        if let (start, end) = range.range {
            try FuzzFailure.check(
                start <= end && range.total.map { end < $0 } ?? true, "range \(start)-\(end)/\(total)")
            written = "bytes \(start)-\(end)/\(total)"
        } else {
            try FuzzFailure.check(range.total != nil, "bytes */* was accepted")
            written = "bytes */\(total)"
        }
        try FuzzFailure.check(ContentRange(written) == range, "\(written) reads back differently")
    }

    /// Server-sent events: the events do not depend on how the bytes were cut into chunks; each one's fields hold
    /// no line ending (nor NUL in the ID); an event past the bound is dropped, never cut; and an event written out
    /// with `encoded` parses back the same.
    package static func serverSentEvents(_ data: Data) throws(FuzzFailure) {
        let bytes = [UInt8](data)
        let bound = 512
        var whole = ServerSentEventParser(maximumEventSize: bound)
        let expected = whole.parse(bytes)
        // Cut points chosen by the input itself, so that libFuzzer explores them.
        var cut = ServerSentEventParser(maximumEventSize: bound)
        var events: [ServerSentEvent] = []
        var start = 0
        var step = Int(bytes.first ?? 1) % 7 + 1
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            events += cut.parse(Array(bytes[start..<end]))
            start = end
            step = Int(bytes[end - 1]) % 13 + 1
        }
        try FuzzFailure.check(events == expected, "the events depend on where the chunks were cut")
        try FuzzFailure.check(
            cut.lastEventID == whole.lastEventID && cut.reconnectionTime == whole.reconnectionTime
                && cut.droppedEvents == whole.droppedEvents, "the parser's state depends on the chunks")
        if bytes.count <= 2048 {
            var byByte = ServerSentEventParser(maximumEventSize: bound)
            let single = bytes.flatMap { byByte.parse([$0]) }
            try FuzzFailure.check(single == expected, "byte by byte gives other events")
        }
        for event in expected {
            // The bound is on the bytes received; each invalid byte is read as U+FFFD, three bytes in UTF-8.
            try FuzzFailure.check(event.data.utf8.count <= 3 * bound, "an event past the bound was delivered")
            let lineEndings: Set<Unicode.Scalar> = ["\r", "\n"]
            try FuzzFailure.check(
                !event.event.unicodeScalars.contains(where: lineEndings.contains)
                    && !event.lastEventID.unicodeScalars.contains { lineEndings.contains($0) || $0 == "\0" }
                    && !event.data.unicodeScalars.contains("\r"),
                "a field holds a line ending: \(event)")
            var again = ServerSentEventParser()
            let reparsed = again.parse(Data(event.encoded.utf8))
            try FuzzFailure.check(
                reparsed.count == 1 && reparsed.first?.data == event.data && reparsed.first?.event == event.event
                    && reparsed.first?.lastEventID == event.lastEventID,
                "\(event) does not read back from its encoding")
        }
    }

    /// `Content-Disposition` file names: whatever the header, the name is one safe path component.
    package static func contentDisposition(_ data: Data) throws(FuzzFailure) {
        let directory = URL(fileURLWithPath: "/downloads")
        // As a transport hands it over: through LazyHTTPResponse, which bounds what Foundation parses.
        guard let url = URL(string: "https://h.example/a/b"),
            let response = LazyHTTPResponse(
                ResponseHead(
                    url: url, statusCode: 200, version: "HTTP/1.1",
                    fields: [("Content-Disposition", String(decoding: data, as: UTF8.self))]))?.response
        else { return }
        let name = DownloadDestination.suggestedFileName(for: response)
        try FuzzFailure.check(!name.isEmpty && !name.hasPrefix("."), "the name '\(name)' is empty or hidden")
        try FuzzFailure.check(name.utf8.count <= DownloadDestination.maximumNameBytes, "the name is too long")
        try FuzzFailure.check(
            !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F },
            "the name '\(name.debugDescription)' holds a separator or a control character")
        let joined = directory.appendingPathComponent(name).standardizedFileURL
        try FuzzFailure.check(joined.deletingLastPathComponent().path == directory.path, "the name leaves its folder")
    }

    /// Header names and values: the check refuses exactly the bytes RFC 9110 forbids.
    package static func headerValue(_ data: Data) throws(FuzzFailure) {
        let text = String(decoding: data, as: UTF8.self)
        let forbidden = text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
        try FuzzFailure.check(
            (HTTPToken.problem(inValue: text) != nil) == forbidden,
            "the value check disagrees on \(text.debugDescription)")
        let tokenBytes = Set("!#$%&'*+-.^_`|~".utf8)
        let isToken =
            !text.isEmpty
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || tokenBytes.contains($0)
            }
        try FuzzFailure.check(
            HTTPToken.isValid(text) == isToken, "the token check disagrees on \(text.debugDescription)")
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        do {
            try request.setValidatedHeader(text, forName: "X-Fuzz")
            try FuzzFailure.check(!forbidden, "a forbidden value was set")
        } catch let error as NALError {
            try FuzzFailure.check(forbidden, "an allowed value was refused: \(error)")
        } catch {}
    }

    /// Response heads as libcurl hands them to CurlTransport, line by line: a status is three digits or none, a
    /// complete head is a final one, field names are tokens without blanks, values hold no line ending and no
    /// replacement character the input did not hold (bytes are kept: UTF-8, else ISO-8859-1), a single-valued field
    /// repeated with one value is that value, and Foundation's response is made of any head without trapping.
    package static func responseHead(_ data: Data) throws(FuzzFailure) {
        #if os(Linux)
            let bytes = [UInt8](data)
            var head = CurlHead()
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
                bytes[start..<end].withUnsafeBytes { head.take($0) }
                start = end
            }
            let status = head.statusCode
            try FuzzFailure.check(status == 0 || (0...999).contains(status), "status \(status)")
            try FuzzFailure.check(
                !head.isComplete || (status != 0 && !(100..<200).contains(status)), "complete with status \(status)")
            // U+FFFD in a value only when the input spelt it in UTF-8.
            let inputHasReplacement = data.range(of: Data([0xEF, 0xBF, 0xBD])) != nil
            for (name, value) in head.fields {
                try FuzzFailure.check(
                    !name.isEmpty && !name.utf8.contains { $0 == 0x20 || $0 == 0x09 },
                    "field name \(name.debugDescription)")
                try FuzzFailure.check(
                    !value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
                    "line ending in \(value.debugDescription)")
                try FuzzFailure.check(
                    inputHasReplacement || !value.unicodeScalars.contains("\u{FFFD}"),
                    "a replacement character in \(value.debugDescription)")
            }
            let responseHead = head.responseHead(for: URL(fileURLWithPath: "/"))
            // Each lookup scans every field: a few dozen names are looked up, so that a head of 60,000 fields costs
            // the check time in proportion to its length, as it costs the parser (every name took minutes).
            var names: [String] = []
            var seen: Set<String> = []
            for (name, _) in head.fields where seen.insert(name.lowercased()).inserted { names.append(name) }
            for name in names.prefix(32) + names.suffix(32) {
                let values = responseHead.values(of: name)
                let value = responseHead.value(of: name)
                try FuzzFailure.check(value != nil && !values.isEmpty, "\(name) has no value")
                if ResponseHead.singleValued.contains(name.lowercased()), Set(values).count == 1 {
                    try FuzzFailure.check(value == values.first, "\(name) repeated with one value reads \(value ?? "")")
                }
            }
            if let lazy = LazyHTTPResponse(responseHead) {
                try FuzzFailure.check(lazy.statusCode == status, "the response's status differs")
                _ = lazy.response.allHeaderFields
            }
        #endif
    }

    /// `Link` headers: any input parses, and every target was written between `<` and `>`.
    package static func links(_ data: Data) throws(FuzzFailure) {
        let text = String(decoding: data, as: UTF8.self)
        let links = WebLink.links(in: text)
        try FuzzFailure.check(links.count <= text.unicodeScalars.filter { $0 == "<" }.count, "more links than '<'")
        for link in links {
            try FuzzFailure.check(!link.target.contains(">"), "a target holds '>'")
        }
    }

    /// The encoders on a parameter tree made from the input: JSON reads back as the same tree, a flat form or query
    /// reads back as the same fields, and no encoder traps on any tree.
    package static func encoders(_ data: Data) throws(FuzzFailure) {
        var input = FuzzInput(data)
        let parameters = tree(&input, depth: 0).dictionary
        for encoding in [URLEncoding.queryString, URLEncoding.httpBody, URLEncoding(arrayEncoding: .noBrackets)] {
            guard let query = try? encoding.queryString(parameters) else { continue }
            // A list of the same pairs writes the same text, in String's `<` order of the keys, whatever they hold.
            try FuzzFailure.check(
                (try? encoding.queryString(ParameterList(parameters))) == query,
                "a ParameterList of the same pairs writes other text than \(query.debugDescription)")
            let keys = parameters.keys.sorted()
            let pairs = keys.map { ($0, ParameterValue.int(1)) }
            let written = try? encoding.queryString(ParameterList(pairs.reversed() + pairs))
            let expected = keys.map { key in
                let escaped = (try? encoding.queryString([key: .int(1)] as Parameters)) ?? ""
                return escaped + "&" + escaped
            }
            try FuzzFailure.check(
                written == expected.joined(separator: "&"),
                "keys \(keys.debugDescription) repeated in a list are not written in String order, each twice")
            try FuzzFailure.check(
                query.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "#" },
                "the query holds a raw character: \(query.debugDescription)")
            let flat = parameters.compactMapValues { value -> String? in
                if case .string(let text) = value { return text }
                return nil
            }
            if flat.count == parameters.count {
                let decoded = Dictionary(FormFields.pairs(in: query).map { ($0.name, $0.value) }) { first, _ in first }
                try FuzzFailure.check(decoded == flat, "the form \(query) reads back as \(decoded), not \(flat)")
            }
        }
        guard let json = try? JSONEncoding.default.data(parameters) else { return }
        let decoded: ParameterValue
        do {
            decoded = try JSONDecoder().decode(ParameterValue.self, from: json)
        } catch {
            throw FuzzFailure("JSONEncoding wrote JSON that does not read back: \(error)")
        }
        let expected = ParameterValue.dictionary(parameters).comparable
        try FuzzFailure.check(
            decoded.comparable == expected, "JSON changed the tree \(expected) into \(decoded.comparable)")
    }

    /// Multipart bodies: whatever the names, file names and types, each part has exactly its own header lines, and
    /// its name reads back from them.
    package static func multipart(_ data: Data) throws(FuzzFailure) {
        var input = FuzzInput(data)
        var parts: [MultipartFormBodyPart] = []
        for _ in 0..<(1 + input.choice(4)) {
            parts.append(
                MultipartFormBodyPart(
                    provider: .data(Data(input.bytes(maximum: 40))), name: input.string(maximum: 20),
                    fileName: input.bool() ? input.string(maximum: 20) : nil,
                    mimeType: input.bool() ? input.string(maximum: 20) : nil))
        }
        let encoder = MultipartEncoder(parts: parts, boundary: "fuzz-boundary-0123456789")
        guard let body = try? encoder.encodedData() else { throw FuzzFailure("an in-memory form did not encode") }
        try FuzzFailure.check(Int64(body.count) == (try? encoder.contentLength()), "the declared length is wrong")
        for (part, original) in zip(Self.partHeads(body, boundary: encoder.boundary), parts) {
            // Bytes, not characters: a combining mark after a quote would make a different character of it.
            let lines = part.split(separator: "\r\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
            let disposition = Array(#"Content-Disposition: form-data; name=""#.utf8)
            try FuzzFailure.check(
                lines.count <= 2 && lines[0].starts(with: disposition)
                    && (lines.count == 1 || lines[1].starts(with: Array("Content-Type: ".utf8))),
                "a part's head has other lines: \(lines.map { String(decoding: $0, as: UTF8.self) })")
            let unescaped = Self.unescapedFormName(
                lines[0].dropFirst(disposition.count).prefix { $0 != UInt8(ascii: "\"") })
            try FuzzFailure.check(
                unescaped == original.name || original.name.contains("%"),
                "the name \(original.name.debugDescription) came back as \(unescaped)")
        }
        // The reader finds each part with its content (unless the fuzzer put the boundary in one), and puts the body
        // back byte for byte.
        guard let reader = MultipartReader(body, boundary: encoder.boundary) else {
            throw FuzzFailure("the reader found no part in an encoded form")
        }
        try FuzzFailure.check(reader.data == body, "the reader did not put the body back as it was")
        let delimiter = Data("--\(encoder.boundary)".utf8)
        if !parts.contains(where: { part in
            if case .data(let content) = part.provider { content.firstRange(of: delimiter) != nil } else { false }
        }) {
            try FuzzFailure.check(reader.parts.count == parts.count, "the reader found \(reader.parts.count) parts")
            for (read, original) in zip(reader.parts, parts) {
                guard case .data(let content) = original.provider else { continue }
                try FuzzFailure.check(read.content == content, "a part's content changed")
                try FuzzFailure.check(
                    read.name == original.name
                        || original.name.unicodeScalars.contains(where: { "\"%\r\n\\".unicodeScalars.contains($0) }),
                    "the name \(original.name.debugDescription) read as \(read.name.debugDescription)")
            }
        }
        // Any bytes under any boundary: the reader keeps every byte, and redaction never traps.
        let raw = Data(input.bytes(maximum: 400))
        let boundary = input.string(maximum: 8)
        if let any = MultipartReader(raw, boundary: boundary) {
            try FuzzFailure.check(any.data == raw, "the reader lost or changed bytes of \(raw as NSData)")
        }
        _ = SensitiveData().redacting(body: raw, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// A part's name as written, with the browsers' escapes `%22`, `%0D` and `%0A` read back, byte by byte.
    private static func unescapedFormName(_ bytes: ArraySlice<UInt8>) -> String {
        var result: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let escape = bytes[index...].prefix(3)
            switch Array(escape) {
            case Array("%22".utf8): result.append(UInt8(ascii: "\""))
            case Array("%0D".utf8): result.append(0x0D)
            case Array("%0A".utf8): result.append(0x0A)
            default:
                result.append(bytes[index])
                index += 1
                continue
            }
            index += 3
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The head (the lines before the blank line) of each part of a multipart body.
    private static func partHeads(_ body: Data, boundary: String) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        return text.split(separator: "--\(boundary)\r\n", omittingEmptySubsequences: false).dropFirst().map { part in
            String(part.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
    }

    /// A parameter tree from the input, at most 6 levels deep.
    private static func tree(_ input: inout FuzzInput, depth: Int) -> ParameterValue {
        switch input.choice(depth >= 6 ? 5 : 7) {
        case 0: return .string(input.string(maximum: 24))
        case 1: return .int(Int(input.int64()))
        case 2: return .double(Double(bitPattern: UInt64(bitPattern: input.int64())))
        case 3: return .bool(input.bool())
        case 4: return .null
        case 5: return .array((0..<input.choice(4)).map { _ in tree(&input, depth: depth + 1) })
        default:
            var object: [String: ParameterValue] = [:]
            for _ in 0..<input.choice(5) { object[input.string(maximum: 12)] = tree(&input, depth: depth + 1) }
            return .dictionary(object)
        }
    }

    /// Redaction: a secret under a sensitive name never shows, in JSON, a form, a URL or a header, whatever
    /// surrounds it.
    package static func redaction(_ data: Data) throws(FuzzFailure) {
        var input = FuzzInput(data)
        let names = [
            "password", "access_token", "X-Api-Key", "client_secret", "sessionId", "Authorization", "user[password]",
        ]
        let name = names[input.choice(names.count)]
        let secret = "Zq" + String(input.int64() & Int64.max, radix: 36) + "Xw"
        let list = SensitiveData()
        let noise = input.string(maximum: 16)
        // JSON, the secret nested under the name at some depth among other members.
        // Built by assignment: a literal with the same key twice traps, and the fuzzer picks `noise`.
        var members: [String: Any] = [noise: [noise, 1]]
        members[name] = secret
        var object: Any = members
        for _ in 0..<input.choice(4) {
            var outer: [String: Any] = ["n": [object]]
            outer[input.string(maximum: 8)] = object
            object = outer
        }
        if let json = try? JSONSerialization.data(withJSONObject: object),
            let shown = list.redacting(json: json)
        {
            try FuzzFailure.check(!shown.contains(secret), "the secret shows in redacted JSON: \(shown)")
        }
        let field = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        let form = "\(noise.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "a")=1&\(field)=\(secret)"
        for type in [nil, "application/x-www-form-urlencoded", "text/plain"] as [String?] {
            if case .text(let shown) = list.redacting(body: Data(form.utf8), contentType: type) {
                try FuzzFailure.check(!shown.contains(secret), "the secret shows in a redacted form: \(shown)")
            }
        }
        // A combining mark after the separator makes one character of both; the split must still happen.
        let marked = list.redacting(formFields: "a=1&\u{301}\(field)=\(secret)")
        try FuzzFailure.check(!marked.contains(secret), "the secret shows after a combining mark: \(marked)")
        for separator in ["&", ";"] {
            let url = "https://u:\(secret)@h.example/p?x=1\(separator)\(field)=\(secret)#\(field)=\(secret)"
            let shown = list.redacting(url: url)
            try FuzzFailure.check(!shown.contains(secret), "the secret shows in a redacted URL: \(shown)")
        }
        if list.isSensitiveHeader(name) {
            let shown = list.displayValue("Bearer \(secret)", forHeader: name)
            try FuzzFailure.check(!shown.contains(secret), "the secret shows in header \(name): \(shown)")
        }
    }
}

extension ParameterValue {
    /// The tree as JSON reads it back: whole doubles become ints, NaN and infinity cannot be written.
    fileprivate var comparable: String {
        switch self {
        case .string(let text): "s" + text
        case .int(let value): "n\(Double(value))"
        case .double(let value): "n\(value == 0 ? 0 : value)"
        case .bool(let value): "b\(value)"
        case .null: "null"
        case .array(let values): "[" + values.map(\.comparable).joined(separator: ",") + "]"
        case .dictionary(let object):
            "{"
                + object.keys.sorted().map { "\($0.debugDescription):\(object[$0]?.comparable ?? "")" }.joined(
                    separator: ",")
                + "}"
        }
    }

    fileprivate var dictionary: [String: ParameterValue] {
        if case .dictionary(let object) = self { return object }
        return ["value": self]
    }
}
