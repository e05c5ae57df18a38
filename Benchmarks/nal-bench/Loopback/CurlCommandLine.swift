import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `curl` command-line tool as a loopback reference: what libcurl does on this machine without any Swift
/// around it. One process makes a whole batch of calls over reused connections (`URL/x[1-N]`), sequentially or
/// with `-Z --parallel-max N`, so that starting the process is spread over the batch.
enum CurlCommandLine {
    /// The `curl` executable on the `PATH`, or `nil` when there is none.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("curl") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Failure: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "curl exited with status \(status)" }
    }

    /// Makes `count` calls to `base/x1` … `base/xN`, `inFlight` at a time (one after the other when `nil`), and
    /// returns the CPU seconds the process used.
    static func batch(_ executable: URL, base: URL, count: Int, inFlight: Int?) async throws -> Double {
        var arguments = ["--silent", "--fail"]
        if let inFlight { arguments += ["--parallel", "--parallel-max", String(inFlight)] }
        arguments.append(base.absoluteString + "/x[1-\(count)]")
        let before = childrenCPUSeconds()
        try await run(executable, arguments)
        return childrenCPUSeconds() - before
    }

    /// Runs curl with `arguments`, its output discarded, without holding a thread while it runs; throws when it
    /// fails.
    static func run(_ executable: URL, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else { throw Failure(status: status) }
    }

    /// User plus system CPU time of the children this process has waited for.
    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
