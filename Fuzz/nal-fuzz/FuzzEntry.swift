import Foundation
import NALFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

/// The target this process fuzzes: `NAL_FUZZ_TARGET`, read once.
let selectedTarget: FuzzTarget? = ProcessInfo.processInfo.environment["NAL_FUZZ_TARGET"].flatMap(FuzzTargets.named)

#if FUZZING
    import CFuzzerDriver

    /// The entry point SwiftPM names for this executable: it hands the command line to libFuzzer's driver, which
    /// then calls `fuzzOne` for every input.
    @_cdecl("nal_fuzz_main")
    public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, fuzzOne)
    }

    /// One input through the selected target. A broken property is a crash that libFuzzer saves, with the
    /// property's message on standard error.
    func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        guard let target = selectedTarget else {
            FileHandle.standardError.write(
                Data(
                    "Error: set NAL_FUZZ_TARGET to one of: \(FuzzTargets.all.map(\.name).joined(separator: ", "))\n"
                        .utf8))
            exit(2)
        }
        do {
            try target.check(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        } catch {
            FileHandle.standardError.write(Data("NAL fuzz target \(target.name): \(error)\n".utf8))
            abort()
        }
        return 0
    }
#else
    /// Without libFuzzer: `nal-fuzz TARGET FILE...` runs files through a target, for reproducing a crash.
    @main
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTargets.named(name) else {
                print("usage: nal-fuzz TARGET FILE...; targets: \(FuzzTargets.all.map(\.name).joined(separator: ", "))")
                exit(64)
            }
            var failed = false
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                do {
                    try target.check(data)
                } catch {
                    print("\(path): \(error)")
                    failed = true
                }
            }
            exit(failed ? 1 : 0)
        }
    }
#endif
