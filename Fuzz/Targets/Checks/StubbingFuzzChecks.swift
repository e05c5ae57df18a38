package import Foundation
import NALCore
import NALStubbing
import NALSupport

/// Properties of NALStubbing's parsers over arbitrary input, for the fuzz targets in `Fuzz/` (and their regression
/// tests). Each throws `FuzzFailure` when a property breaks; none may trap on any input.
package enum StubbingFuzzChecks {
    private static let file = URL(fileURLWithPath: "/fuzz/input")

    /// A `.tail` file that loads, written again, loads to the same stub: method and URL patterns, status, headers
    /// and body. One that does not load fails with a located error. Its first lines also try `literalPattern`.
    package static func tail(_ data: Data) throws(FuzzFailure) {
        try literalPattern(data)
        let parsed: TailFile
        do {
            parsed = try TailFile(data, file: file, placeholders: ["name": "Ada", "id": "{{ 7 }}"])
        } catch {
            try FuzzFailure.check(error.file == file && (error.line ?? 1) >= 1, "an error without a place: \(error)")
            return
        }
        let again: TailFile
        do {
            again = try TailFile(parsed.contents, file: file, placeholders: [:])
        } catch {
            throw FuzzFailure("a loaded .tail written again does not load: \(error)")
        }
        try FuzzFailure.check(
            again.methodPattern == parsed.methodPattern && again.urlPattern == parsed.urlPattern,
            "the patterns changed: \(parsed.methodPattern) \(parsed.urlPattern) became "
                + "\(again.methodPattern) \(again.urlPattern)")
        try FuzzFailure.check(again.response.status == parsed.response.status, "the status changed")
        // A body written in base64 needs a Content-Type to carry `;base64`: one it lacked is octet-stream.
        var expected = parsed.response.headers
        if expected.headerKey("Content-Type") == nil, again.response.headers.count == expected.count + 1 {
            expected["Content-Type"] = "application/octet-stream"
        }
        try FuzzFailure.check(
            again.response.headers == expected, "the headers changed: \(expected) became \(again.response.headers)")
        try FuzzFailure.check(again.contents == parsed.contents, "the body changed")
    }

    /// A pattern matched as plain text (`LiteralPattern`) answers as ICU does, or leaves the answer to it: the
    /// input's first line is the pattern, the rest the text matched.
    package static func literalPattern(_ data: Data) throws(FuzzFailure) {
        let bytes = [UInt8](data)
        let lineEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let pattern = String(decoding: bytes[..<lineEnd], as: UTF8.self)
        let subject = String(decoding: bytes[min(lineEnd + 1, bytes.count)...], as: UTF8.self)
        for caseInsensitive in [false, true] {
            guard let literal = LiteralPattern(pattern, caseInsensitive: caseInsensitive),
                let answer = literal.matches(subject)
            else { continue }
            guard
                let regex = try? NSRegularExpression(
                    pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
            else { throw FuzzFailure("\(pattern.debugDescription) is a literal but no regex") }
            let expected = regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
            try FuzzFailure.check(
                answer == expected,
                "\(pattern.debugDescription) on \(subject.debugDescription) (case-insensitive \(caseInsensitive)): "
                    + "the literal says \(answer), ICU \(expected)")
        }
    }

    /// A HAR file that loads, written again, loads to the same entries; one that does not load fails with a
    /// message, never a trap.
    package static func har(_ data: Data) throws(FuzzFailure) {
        guard let entries = try? HARReader.entries(of: data, file: file) else { return }
        let written = HARDocument(log: HARDocument.Log(entries: entries.map(HARDocument.Entry.init))).encoded()
        let again: [HARReader.Entry]
        do {
            again = try HARReader.entries(of: written, file: file)
        } catch {
            throw FuzzFailure("a loaded HAR written again does not load: \(error)")
        }
        try FuzzFailure.check(again.count == entries.count, "entries were lost")
        for (first, second) in zip(entries, again) {
            try FuzzFailure.check(
                first.method == second.method && first.url == second.url && first.status == second.status
                    && first.responseBody == second.responseBody && first.requestBody == second.requestBody,
                "the entry \(first.method) \(first.url) changed")
        }
        // Loading as stubs must not trap either.
        _ = try? StubServer().loadHAR(data, file: file, matchingBody: true)
    }

    /// The JSON syntax check accepts only what Foundation's parser reads (which also takes trailing commas, beyond
    /// RFC 8259), refuses what it refuses, and places every problem inside the text.
    package static func jsonSyntax(_ data: Data) throws(FuzzFailure) {
        let problem = JSONSyntax.firstProblem(in: data)
        let lines = data.filter { $0 == 0x0A }.count + 1
        if let problem {
            try FuzzFailure.check(
                problem.line >= 1 && problem.line <= lines && problem.column >= 1, "a problem outside the text")
        }
        var text = data
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        let parses = (try? JSONSerialization.jsonObject(with: text, options: [.fragmentsAllowed])) != nil
        try FuzzFailure.check(
            parses || problem != nil,
            "JSONSyntax says \(problem.map { "\($0.line):\($0.column): \($0.message)" } ?? "valid"), Foundation \(parses ? "parses it" : "does not")"
        )
    }

    /// Form bodies as the form matcher reads them: any input, and replacing nothing changes nothing.
    package static func form(_ data: Data) throws(FuzzFailure) {
        let text = String(decoding: data, as: UTF8.self)
        _ = RequestMatcher.formBody(["a": "b"]).matches(RecordedRequest(method: "POST", url: file, body: data))
        try FuzzFailure.check(
            FormFields.replacingValues(in: text) { _ in nil } == text, "an identity replacement changed the form")
    }
}
