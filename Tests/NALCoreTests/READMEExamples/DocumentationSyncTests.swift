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

    /// The fenced ```swift blocks of a Markdown text (``` swift too). A fence that names Swift in another spelling
    /// (```Swift) or a block that is never closed is recorded as an issue: either would escape the comparison.
    static func swiftBlocks(in markdown: String, file: String = "") -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        var inOtherBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, !inOtherBlock, trimmed.hasPrefix("```") {
                let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
                if language == "swift" {
                    current = []
                } else if language.lowercased().hasPrefix("swift") {
                    Issue.record("\(file): a fence '\(trimmed)' is Swift in another spelling; write ```swift")
                    current = []
                } else {
                    inOtherBlock = true
                }
            } else if trimmed == "```" {
                if let lines = current { blocks.append(normalized(lines)) }
                current = nil
                inOtherBlock = false
            } else {
                current?.append(line)
            }
        }
        if current != nil || inOtherBlock {
            Issue.record("\(file): a code block is never closed")
        }
        return blocks
    }

    /// The marked regions of Swift source, by name.
    static func regions(in source: String, file: String) throws -> [String: String] {
        var regions: [String: String] = [:]
        var open: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// Docs: begin ") {
                open = (String(trimmed.dropFirst("// Docs: begin ".count)), [])
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
        for file in files(under: "Tests", pathExtension: "swift") {
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

    @Test("the checker notices a changed line")
    func checkerNoticesChanges() throws {
        let markdown = "text\n```swift\n    let a = 1\n    let b = 2\n```\n"
        let code =
            "func f() {\n        // Docs: begin x\n        let a = 1\n        let b = 2\n        // Docs: end x\n}"
        #expect(Self.swiftBlocks(in: markdown) == [try #require(try Self.regions(in: code, file: "f")["x"])])
        let changed = code.replacingOccurrences(of: "let b = 2", with: "let b = 3")
        #expect(Self.swiftBlocks(in: markdown) != [try #require(try Self.regions(in: changed, file: "f")["x"])])
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
        #expect(Self.swiftBlocks(in: "``` swift\n    let a = 1\n```\n") == ["let a = 1"])
    }
}
