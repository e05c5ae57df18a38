package import Foundation
import NALCore
import NALSupport

/// What `nal-cli stubs` does with fixture directories.
package enum FixtureTools {
    /// Every problem in the `.tail` and `.har` files under `directory` (or in that one file), each file checked on
    /// its own; and how many files were checked.
    package static func lint(
        _ directory: URL, placeholders: [String: String]
    ) throws(FixtureError) -> (files: Int, problems: [FixtureError]) {
        let kind = FileKind(path: directory.path)
        let tails: [URL]
        let hars: [URL]
        switch kind {
        case .directory:
            tails = try StubServer.tailFiles(in: directory)
            hars = harFiles(in: directory)
        case .regular where directory.pathExtension == "tail":
            (tails, hars) = ([directory], [])
        case .regular where directory.pathExtension == "har":
            (tails, hars) = ([], [directory])
        case .regular:
            throw FixtureError(file: directory, message: "is neither a directory nor a .tail or .har file")
        default:
            throw FixtureError(file: directory, message: kind.problem ?? "cannot be read")
        }
        var problems: [FixtureError] = []
        for file in tails {
            do {
                _ = try TailFile(contentsOf: file, placeholders: placeholders)
            } catch {
                problems.append(error)
            }
        }
        for file in hars {
            do {
                try StubServer().loadHAR(from: file)
            } catch {
                problems.append(error)
            }
        }
        return (tails.count + hars.count, problems)
    }

    /// Loads the `.tail` files and the `.har` files under `directory` into `server`; the number of stubs.
    @discardableResult
    package static func load(
        _ directory: URL, into server: StubServer, placeholders: [String: String]
    ) throws(FixtureError) -> Int {
        var count = try server.loadTails(from: directory, placeholders: placeholders).count
        for file in harFiles(in: directory) { count += try server.loadHAR(from: file).count }
        return count
    }

    /// Loads what `path` names into `server`: a directory of `.tail` and `.har` files, one `.tail` file, or one
    /// `.har` file; the number of stubs.
    @discardableResult
    package static func load(
        path: URL, into server: StubServer, placeholders: [String: String]
    ) throws(FixtureError) -> Int {
        let kind = FileKind(path: path.path)
        switch kind {
        case .directory:
            return try load(path, into: server, placeholders: placeholders)
        case .regular where path.pathExtension == "har":
            return try server.loadHAR(from: path).count
        case .regular where path.pathExtension == "tail":
            let tail = try TailFile(contentsOf: path, placeholders: placeholders)
            _ = server.register(tail.matcher, .repeating(tail.response), origin: path.lastPathComponent)
            return 1
        case .regular:
            throw FixtureError(file: path, message: "is neither a directory nor a .tail or .har file")
        default:
            throw FixtureError(file: path, message: kind.problem ?? "cannot be read")
        }
    }

    /// The `.har` files under `directory`, sorted.
    static func harFiles(in directory: URL) -> [URL] {
        (FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            ?? []).filter { $0.pathExtension == "har" }.sorted { $0.path < $1.path }
    }

    /// Writes each entry of the HAR file `har` as a `.tail` file in `directory`: the method, the URL escaped as an
    /// anchored pattern, the status, the replayed headers, the body (base64 when it is not UTF-8 text, or holds
    /// `{{`, which a `.tail` body would read as a placeholder). Every field written was checked when the HAR was
    /// read (a method is a token, a status is 100 to 599, header values hold no line break), so no entry can forge
    /// another line of the file. Entries of failed requests (status 0) have no response to replay: they are skipped
    /// and listed in `skipped`.
    package static func importHAR(
        _ har: URL, to directory: URL
    ) throws(FixtureError) -> (written: [URL], skipped: [String]) {
        let entries = try HARReader.entries(of: try FixtureError.contents(of: har), file: har)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw FixtureError(file: directory, message: "cannot be created: \(error.localizedDescription)")
        }
        var written: [URL] = []
        var skipped: [String] = []
        for (index, entry) in entries.enumerated() {
            guard entry.failure == nil, (100...599).contains(entry.status) else {
                skipped.append(
                    "entry \(index) (\(entry.method) \(DisplayText.url(entry.url))): status \(entry.status), a request "
                        + "that failed in the browser, has no response to replay")
                continue
            }
            let contents = TailFile.contents(
                methodPattern: escaped(entry.method), urlPattern: "^\(escaped(entry.url.absoluteString))$",
                status: entry.status, headers: HARReader.replayedHeaders(entry.responseHeaders),
                body: entry.responseBody)
            let file = directory.appendingPathComponent(tailName(index, entry))
            do {
                try contents.write(to: file, options: .atomic)
            } catch {
                throw FixtureError(file: file, message: "cannot be written: \(error.localizedDescription)")
            }
            written.append(file)
        }
        return (written, skipped)
    }

    /// `text` as a regular expression that matches exactly it: metacharacters get a backslash, `/` does not.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `003-get-mitmproxy.org-style.min.css.tail`: the entry's number, method, host and last path component.
    private static func tailName(_ index: Int, _ entry: HARReader.Entry) -> String {
        let last = entry.url.lastPathComponent == "/" ? "index" : entry.url.lastPathComponent
        let raw = "\(entry.method.lowercased())-\(entry.url.host ?? "host")-\(last)"
        let safe = String(raw.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.prefix(80))
        return String(format: "%03d-", index) + safe + ".tail"
    }
}
