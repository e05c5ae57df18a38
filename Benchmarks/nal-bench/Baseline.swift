import Foundation
import NALSupport

/// Saved results of every NAL scenario of one run, to compare later runs with (`--save-baseline`, `--compare`).
///
/// Allocations are comparable across machines; times only on the machine that saved them.
struct Baseline: Codable, Equatable {
    /// What one scenario measured.
    struct Entry: Codable, Equatable {
        var description: String
        /// Allocations per op, `nil` where they could not be counted.
        var mallocsPerOp: Double?
        /// For a scenario gated above its reference: its allocations minus the reference's.
        var mallocsAboveReference: Double?
        /// Nanoseconds per op: the median and the 90th percentile over rounds, and the quartiles that give the
        /// run's spread.
        var median: Double
        var p90: Double
        var p25: Double
        var p75: Double
        /// How many rounds the times come from; fewer than `BaselineComparison.minimumRounds` give no time verdict.
        var rounds: Int

        var spread: Double { max(0, p75 - p25) }
    }

    /// The format's version; a file of another version is refused.
    static let currentVersion = 1

    var version = Baseline.currentVersion
    /// When it was saved (ISO 8601), and where: the operating system, architecture and core count, so that a time
    /// comparison across machines can be spotted.
    var created: String
    var machine: String
    /// Whether the allocation counts were made in `--quick` mode, which counts the same as a full run.
    var quick: Bool
    /// The `--filter` it was saved with, if any: such a baseline covers only part of the scenarios.
    var filter: String?
    var scenarios: [String: Entry]

    /// The baseline of `results`' NAL scenarios (references are Foundation code, not ours to regress).
    init(_ results: [Measurement], benchmarks: [Benchmark], quick: Bool, filter: String? = nil, date: Date = Date()) {
        let byName = Dictionary(benchmarks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var scenarios: [String: Entry] = [:]
        for result in results where !result.isReference {
            let benchmark = byName[result.name]
            scenarios[result.name] = Entry(
                description: benchmark?.description ?? "", mallocsPerOp: result.mallocsPerOp,
                mallocsAboveReference: result.mallocsAboveReference, median: result.p50, p90: result.p90,
                p25: result.p25, p75: result.p75, rounds: result.rounds)
        }
        self.scenarios = scenarios
        created = ISO8601DateFormatter().string(from: date)
        machine = Self.machineDescription
        self.quick = quick
        self.filter = filter
    }

    static var machineDescription: String {
        let info = ProcessInfo.processInfo
        #if arch(x86_64)
            let architecture = "x86_64"
        #elseif arch(arm64)
            let architecture = "arm64"
        #else
            let architecture = "other"
        #endif
        return "\(info.operatingSystemVersionString), \(architecture), \(info.activeProcessorCount) cores\(cpuModel)"
    }

    /// ", <CPU model>" from /proc/cpuinfo where there is one: two machines with the same OS and core count are
    /// still different machines for time.
    private static var cpuModel: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        else { return "" }
        return ", " + line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    /// Where a baseline named `name` lives: the path itself when it names a file (it has a `/` or ends in
    /// `.json`), else `.benchmarks/<name>.json`.
    static func path(for name: String) -> String {
        name.contains("/") || name.hasSuffix(".json") ? name : ".benchmarks/\(name).json"
    }

    /// Why a baseline could not be read or written.
    struct FileError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(_ name: String) throws(FileError) -> Baseline {
        let path = path(for: name)
        let kind = FileKind(path: path)
        guard kind != .missing else {
            throw FileError(description: "no baseline at \(path); save one with --save-baseline \(name)")
        }
        // A FIFO would block the read, a device never end it, and a huge file fill memory: each is named, not read.
        let data: Data
        do throws(BoundedFile.Failure) {
            data = try BoundedFile.contents(ofPath: path, atMost: largestFile)
        } catch {
            throw FileError(description: "the baseline \(path) \(error.problem)")
        }
        let baseline: Baseline
        do {
            baseline = try JSONDecoder().decode(Baseline.self, from: data)
        } catch {
            throw FileError(description: "\(path) is not a nal-bench baseline: \(error)")
        }
        guard baseline.version == currentVersion else {
            throw FileError(
                description:
                    "\(path) is a baseline of format \(baseline.version); this nal-bench reads \(currentVersion)")
        }
        if let problem = baseline.firstProblem {
            throw FileError(description: "\(path) is not a usable baseline: \(problem)")
        }
        // Every field is printed somewhere (titles, notes, descriptions): none may reach a terminal or a CI log as
        // an escape sequence.
        var shown = baseline
        shown.created = printable(baseline.created)
        shown.machine = printable(baseline.machine)
        shown.filter = baseline.filter.map(printable)
        for (name, entry) in baseline.scenarios {
            shown.scenarios[name]?.description = printable(entry.description)
        }
        return shown
    }

    /// `text` as it may be printed: control and format characters (escape sequences, C1 controls, bidirectional
    /// overrides, line and paragraph separators) shown as "?", and at most 200 characters.
    static func printable(_ text: String) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(200) {
            shown.append(isPrintable(scalar) ? scalar : "?")
        }
        return String(shown) + (text.unicodeScalars.count > 200 ? "…" : "")
    }

    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
        default: true
        }
    }

    /// The widest spread (p75 - p25) a baseline may have, in medians. The comparison trusts a baseline's spread
    /// only as far as the run's own goes, so this only refuses what no run produces.
    static let largestSpread = 1000.0
    /// The most bytes a baseline file may hold: a real one of every scenario is a few KiB.
    static let largestFile = 16 << 20
    /// The shortest median a baseline may state, in nanoseconds: no operation takes less than a cycle, and a tinier
    /// (or subnormal) median makes every ratio against it infinite.
    static let shortestMedian = 0.01

    /// What makes an edited or damaged baseline unusable: a number no run can produce would hide a change (a median
    /// of 0 makes every time "unchanged").
    var firstProblem: String? {
        for (name, entry) in scenarios.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || !name.unicodeScalars.allSatisfy(Self.isPrintable) {
                return "a scenario name holds control characters"
            }
            let times = [entry.median, entry.p25, entry.p75, entry.p90]
            guard times.allSatisfy({ $0.isFinite && $0 >= 0 }), entry.median >= Self.shortestMedian else {
                return "\(name): its times must be finite and its median at least \(Self.shortestMedian) ns"
            }
            // The quartiles a run gives are in order, and its middle half of rounds does not spread over a thousand
            // times its median (a debug run on a loaded machine went past ten): a spread that wide is an edit.
            guard entry.p25 <= entry.median, entry.median <= entry.p75, entry.p75 <= entry.p90 else {
                return "\(name): its times must be in order (p25 <= median <= p75 <= p90)"
            }
            guard entry.spread <= Self.largestSpread * entry.median else {
                return "\(name): its spread (p75 - p25) is over \(Int(Self.largestSpread)) times its median"
            }
            let counts = [entry.mallocsPerOp, entry.mallocsAboveReference].compactMap { $0 }
            guard counts.allSatisfy(\.isFinite), (entry.mallocsPerOp ?? 0) >= 0, entry.rounds >= 0 else {
                return "\(name): its allocation counts and rounds must be finite and not negative"
            }
        }
        return nil
    }

    /// Throws when a baseline named `name` could not be written: checked before a run measures anything.
    static func checkWritable(_ name: String) throws(FileError) {
        let path = path(for: name)
        guard !path.hasSuffix("/") else {
            throw FileError(description: "cannot save a baseline to \(path): it names a folder; give a file")
        }
        // Only a regular file is replaced: never a device, a FIFO or what a symbolic link points at.
        if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
            type != .typeRegular
        {
            throw FileError(description: "cannot save a baseline to \(path): it exists and is not a regular file")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw FileError(description: "cannot save a baseline to \(path): it is a directory")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw FileError(description: "cannot save a baseline to \(path): \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: folder.path) else {
            throw FileError(description: "cannot save a baseline to \(path): \(folder.path) is not writable")
        }
    }

    func save(as name: String) throws(FileError) {
        let path = Self.path(for: name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var data = try encoder.encode(self)
            data.append(0x0A)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FileError(description: "could not write the baseline \(path): \(error.localizedDescription)")
        }
    }
}
