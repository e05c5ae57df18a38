import Foundation
import NALStubbing

/// `nal-cli stubs import-har <file.har> <dir>`: a HAR export as `.tail` files.
enum StubsImportHARCommand: Command {
    static let name = "import-har"
    static let abstract = "Write each entry of a HAR file as a .tail file."
    static let usage = "nal-cli stubs import-har <file.har> <dir>"
    static let discussion = """
        Each file matches its entry's method and exact URL and answers with its status, headers and body. \
        Entries of requests that failed in the browser (status 0) have no response to replay: they are skipped and \
        listed.
        """
    static let arguments: [(name: String, help: String)] = [
        ("<file.har>", "A HAR export: Chrome, Firefox, Safari, Charles, Insomnia."),
        ("<dir>", "The directory to write the .tail files to; made if missing."),
    ]
    static let options: [OptionSpec] = []

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(UsageError) -> Int32 {
        let positionals = arguments.positionals
        guard positionals.count == 2 else { throw UsageError(message: "import-har takes a HAR file and a directory") }
        return importHAR(URL(fileURLWithPath: positionals[0]), URL(fileURLWithPath: positionals[1]), terminal)
    }

    static func importHAR(_ har: URL, _ directory: URL, _ terminal: Terminal) -> Int32 {
        do throws(FixtureError) {
            let (written, skipped) = try FixtureTools.importHAR(har, to: directory)
            for file in written { terminal.out("wrote \(file.path)") }
            for entry in skipped { terminal.out("skipped \(entry)") }
            terminal.out(
                "\(written.count) .tail \(written.count == 1 ? "file" : "files") from \(har.lastPathComponent)"
                    + (skipped.isEmpty ? "" : ", \(skipped.count) failed entries skipped"))
            return ExitCode.success
        } catch {
            terminal.err("Error: \(error)")
            return ExitCode.failure
        }
    }
}
