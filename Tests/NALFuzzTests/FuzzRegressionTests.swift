import Foundation
import NALFuzzTargets
import NALSupport
import Testing

/// Every file of each target's seed corpus (`Fuzz/Corpus/<target>`) and every input a fuzzer once broke a target
/// with (`Fuzz/Regressions/<target>`) holds the target's properties.
@Suite("Fuzz corpora and regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    @Test("each target holds on its seeds and past crashes", arguments: FuzzTargets.all.map(\.name))
    func replay(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        var count = 0
        for folder in ["Corpus", "Regressions"] {
            let directory = Self.root.appendingPathComponent("\(folder)/\(name)")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for file in files.sorted() {
                let data = try Data(contentsOf: directory.appendingPathComponent(file))
                do {
                    try target.check(data)
                } catch {
                    Issue.record("\(folder)/\(name)/\(file): \(error)")
                }
                count += 1
            }
        }
        #expect(count > 0, "no seed for \(name)")
    }
}
