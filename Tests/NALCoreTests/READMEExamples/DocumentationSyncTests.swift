import Foundation
import Testing

/// Keeps the documentation honest: every Swift block of README.md and of the DocC articles
/// (`Sources/<Module>/<Module>.docc/*.md`) is a region of test code that compiles and runs, marked
/// `// Docs: begin <name>` … `// Docs: end <name>`, and every such region appears in one of them, verbatim apart from
/// indentation. A renamed API breaks the build, not the reader.
@Suite("Documentation and the tested code agree")
struct DocumentationSyncTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fenced Swift blocks of a Markdown text, wherever Markdown renders them as Swift: ``` or ~~~ fences of any
    /// length, an info string that starts with "swift" in any case, inside block quotes and asides, CRLF or LF. A fence
    /// spelt other than ```swift, or a block that is never closed, is recorded as an issue.
    static func swiftBlocks(in markdown: String, file: String = "") -> [String] {
        var blocks: [String] = []
        var open: (fence: String, isSwift: Bool, lines: [Substring])?
        // isNewline: "\r\n" is one Character, which splitting on "\n" would not split.
        for rawLine in markdown.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = unquoted(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = open {
                if trimmed.hasPrefix(block.fence), trimmed.allSatisfy({ $0 == block.fence.first }) {
                    if block.isSwift { blocks.append(normalized(block.lines)) }
                    open = nil
                } else {
                    open?.lines.append(line)
                }
                continue
            }
            guard let marker = trimmed.first, marker == "`" || marker == "~" else { continue }
            let fence = String(trimmed.prefix { $0 == marker })
            guard fence.count >= 3 else { continue }
            let info = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
            let isSwift = info.lowercased().hasPrefix("swift")
            if isSwift, trimmed != "```swift" {
                Issue.record("\(file): a fence '\(trimmed)' opens Swift; write ```swift")
            }
            open = (fence, isSwift, [])
        }
        if open != nil {
            Issue.record("\(file): a code block is never closed")
        }
        return blocks
    }

    /// A line without the `>` markers of the block quotes (and DocC asides) it is in.
    static func unquoted(_ line: Substring) -> Substring {
        var rest = line
        while let first = rest.drop(while: { $0 == " " }).first, first == ">" {
            rest = rest.drop(while: { $0 == " " }).dropFirst()
            if rest.first == " " { rest = rest.dropFirst() }
        }
        return rest
    }

    /// The marked regions of Swift source, by name.
    static func regions(in source: String, file: String) throws -> [String: String] {
        var regions: [String: String] = [:]
        var open: (name: String, lines: [Substring])?
        // A region inside `#if` proves nothing unless the condition holds where the tests run (Linux): `#if false`,
        // an `#else` branch or a custom flag may never be compiled.
        var conditions: [Bool] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if ") {
                conditions.append(trimmed == "#if os(Linux)" || trimmed.hasPrefix("#if canImport("))
            } else if trimmed.hasPrefix("#else") || trimmed.hasPrefix("#elseif"), !conditions.isEmpty {
                conditions[conditions.count - 1] = false
            } else if trimmed == "#endif" {
                _ = conditions.popLast()
            }
            if trimmed.hasPrefix("// Docs: begin ") {
                let name = String(trimmed.dropFirst("// Docs: begin ".count))
                #expect(open == nil, "\(file): region \(name) begins inside region \(open?.name ?? "")")
                #expect(
                    !conditions.contains(false), "\(file): region \(name) is inside an #if that may not be compiled")
                open = (name, [])
            } else if trimmed.hasPrefix("// Docs: end "), let region = open {
                #expect(trimmed == "// Docs: end \(region.name)", "\(file): region \(region.name) ends as \(trimmed)")
                #expect(regions[region.name] == nil, "\(file): region \(region.name) appears twice")
                regions[region.name] = normalized(region.lines)
                open = nil
            } else {
                open?.lines.append(line)
            }
        }
        #expect(open == nil, "\(file): region \(open?.name ?? "") is never closed")
        return regions
    }

    /// Lines without their common indentation and trailing spaces, without blank lines at either end.
    static func normalized(_ lines: [Substring]) -> String {
        var lines = lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
    }

    /// The files under `folder` (relative to the package) whose extension is `pathExtension`.
    static func files(under folder: String, pathExtension: String) -> [URL] {
        let start = root.appendingPathComponent(folder)
        return FileManager.default.enumerator(at: start, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == pathExtension }
            .sorted { $0.path < $1.path } ?? []
    }

    static func allRegions() throws -> [String: String] {
        var all: [String: String] = [:]
        // Folders the package excludes from its test targets are never compiled.
        let compiled = files(under: "Tests", pathExtension: "swift").filter { file in
            !file.pathComponents.contains("Fixtures") && !file.pathComponents.contains("Golden")
        }
        for file in compiled {
            let found = try regions(in: try String(contentsOf: file, encoding: .utf8), file: file.lastPathComponent)
            for (name, text) in found {
                #expect(all[name] == nil, "region \(name) is defined in two files")
                all[name] = text
            }
        }
        return all
    }

    /// README.md and every DocC article, by their path in the package.
    static func documents() throws -> [(path: String, text: String)] {
        let articles = files(under: "Sources", pathExtension: "md").filter { $0.path.contains(".docc/") }
        return try ([root.appendingPathComponent("README.md")] + articles).map { file in
            (String(file.path.dropFirst(root.path.count + 1)), try String(contentsOf: file, encoding: .utf8))
        }
    }

    @Test("every Swift block of the README and the articles is tested code, and every region is shown somewhere")
    func documentsMatchTests() throws {
        let documents = try Self.documents()
        let regions = try Self.allRegions()
        let regionTexts = Set(regions.values)
        var shown: Set<String> = []
        for document in documents {
            for block in Self.swiftBlocks(in: document.text, file: document.path) {
                shown.insert(block)
                if !regionTexts.contains(block) {
                    Issue.record("\(document.path): a Swift block is not a tested region:\n\(block.prefix(300))")
                }
            }
        }
        #expect(Self.swiftBlocks(in: documents[0].text).count >= 3, "the README shows too little code")
        #expect(documents.count >= 20, "found \(documents.count - 1) articles")
        for (name, text) in regions.sorted(by: { $0.key < $1.key }) where !shown.contains(text) {
            Issue.record("region '\(name)' is in no document, or differs:\n\(text.prefix(300))")
        }
    }

    /// The widest code line a DocC code box shows whole; wider ones are cut off on the page.
    static let widestCodeLine = 90

    /// The lines of `block` wider than `widestCodeLine`, except inside a multi-line string literal (expected output
    /// that must stay as it is).
    static func tooWide(_ block: String) -> [Substring] {
        var inString = false
        var wide: [Substring] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            if !inString, line.count > widestCodeLine { wide.append(line) }
            if quotes % 2 == 1 { inString.toggle() }
        }
        return wide
    }

    @Test("every Swift block of the README and the articles fits a DocC code box: 90 columns")
    func codeLinesFit() throws {
        for document in try Self.documents() {
            for block in Self.swiftBlocks(in: document.text, file: document.path) {
                for line in Self.tooWide(block) {
                    Issue.record("\(document.path): \(line.count) columns: \(line)")
                }
            }
        }
        #expect(Self.tooWide(String(repeating: "x", count: 91)) == [Substring(String(repeating: "x", count: 91))])
        #expect(Self.tooWide("let a = \"\"\"\n" + String(repeating: "x", count: 91) + "\n\"\"\"").isEmpty)
    }

    @Test("the checker notices a changed line")
    func checkerNoticesChanges() throws {
        let markdown = "text\n```swift\n    let a = 1\n    let b = 2\n```\n"
        let code =
            "func f() {\n        // Docs: begin x\n        let a = 1\n        let b = 2\n        // Docs: end x\n}"
        #expect(Self.swiftBlocks(in: markdown) == [try #require(try Self.regions(in: code, file: "f")["x"])])
        let changed = code.replacingOccurrences(of: "let b = 2", with: "let b = 3")
        #expect(Self.swiftBlocks(in: markdown) != [try #require(try Self.regions(in: changed, file: "f")["x"])])
    }

    @Test("a region that may not be compiled, or that opens inside another, is reported")
    func checkerNoticesUncompiledRegions() throws {
        let hidden = "#if false\n// Docs: begin x\nlet a = 1\n// Docs: end x\n#endif\n"
        try withKnownIssue {
            _ = try Self.regions(in: hidden, file: "hidden.swift")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("hidden.swift: region x is inside an #if") }
        }
        let linux = "#if os(Linux)\n// Docs: begin x\nlet a = 1\n// Docs: end x\n#endif\n"
        #expect(try Self.regions(in: linux, file: "linux.swift")["x"] == "let a = 1")
        let nested = "// Docs: begin x\n// Docs: begin y\nlet a = 1\n// Docs: end y\n"
        try withKnownIssue {
            _ = try Self.regions(in: nested, file: "nested.swift")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("nested.swift: region y begins inside region x") }
        }
    }

    @Test("an unclosed block and a Swift fence spelt otherwise are reported")
    func checkerNoticesBadFences() {
        withKnownIssue {
            _ = Self.swiftBlocks(in: "```swift\nlet a = 1\n", file: "unclosed.md")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("unclosed.md: a code block is never closed") }
        }
        withKnownIssue {
            _ = Self.swiftBlocks(in: "```Swift\nlet a = 1\n```\n", file: "capital.md")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("capital.md: a fence '```Swift'") }
        }
        withKnownIssue {
            #expect(Self.swiftBlocks(in: "~~~swift\nlet a = 1\n~~~\n", file: "tilde.md") == ["let a = 1"])
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("tilde.md: a fence '~~~swift'") }
        }
        #expect(Self.swiftBlocks(in: "> Note:\n> ```swift\n> let a = 1\n> ```\n") == ["let a = 1"])
        #expect(Self.swiftBlocks(in: "```swift\r\nlet a = 1\r\n```\r\n") == ["let a = 1"])
        #expect(Self.swiftBlocks(in: "```text\n```swift\n```\n") == [], "a fence inside another block is text")
    }
}
