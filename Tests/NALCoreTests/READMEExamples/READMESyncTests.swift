import Foundation
import Testing

/// Keeps the README honest: every Swift block in README.md is a region of test code that compiles and runs, marked
/// `// README: begin <name>` … `// README: end <name>`, and every such region appears in the README, verbatim
/// apart from indentation.
@Suite("README and the tested code agree")
struct READMESyncTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fenced ```swift blocks of a Markdown text.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(normalized(current ?? []))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The marked regions of Swift source, by name.
    static func regions(in source: String, file: String) throws -> [String: String] {
        var regions: [String: String] = [:]
        var open: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// README: begin ") {
                open = (String(trimmed.dropFirst("// README: begin ".count)), [])
            } else if trimmed.hasPrefix("// README: end "), let region = open {
                #expect(trimmed == "// README: end \(region.name)", "\(file): region \(region.name) ends as \(trimmed)")
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

    static func allRegions() throws -> [String: String] {
        var all: [String: String] = [:]
        let tests = root.appendingPathComponent("Tests")
        let files =
            FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let found = try regions(in: try String(contentsOf: file, encoding: .utf8), file: file.lastPathComponent)
            for (name, text) in found {
                #expect(all[name] == nil, "region \(name) is defined in two files")
                all[name] = text
            }
        }
        return all
    }

    @Test("every Swift block of the README is tested code, and every README region is in the README")
    func readmeMatchesTests() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        let regions = try Self.allRegions()
        #expect(blocks.count >= 5, "found \(blocks.count) Swift blocks in the README")
        let regionTexts = Set(regions.values)
        for block in blocks where !regionTexts.contains(block) {
            Issue.record("README block is not a tested region:\n\(block.prefix(300))")
        }
        for (name, text) in regions.sorted(by: { $0.key < $1.key }) where !blocks.contains(text) {
            Issue.record("region '\(name)' is not in the README, or differs:\n\(text.prefix(300))")
        }
    }

    @Test("the checker notices a changed line")
    func checkerNoticesChanges() throws {
        let markdown = "text\n```swift\n    let a = 1\n    let b = 2\n```\n"
        let code =
            "func f() {\n        // README: begin x\n        let a = 1\n        let b = 2\n        // README: end x\n}"
        #expect(Self.swiftBlocks(in: markdown) == [try #require(try Self.regions(in: code, file: "f")["x"])])
        let changed = code.replacingOccurrences(of: "let b = 2", with: "let b = 3")
        #expect(Self.swiftBlocks(in: markdown) != [try #require(try Self.regions(in: changed, file: "f")["x"])])
    }
}
