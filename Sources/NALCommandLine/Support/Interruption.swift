import Dispatch
import NALLogging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends a run cleanly on SIGINT or SIGTERM, as a user who presses Ctrl-C expects: the command's task is cancelled,
/// so a download removes its partial file and an upload its temporary file, the copy of standard input is removed,
/// and the exit status is 128 plus the signal's number, as shells report it. Parts that ignore cancellation get
/// `patience`; a second signal ends the run at once.
enum Interruption {
    static let patience: DispatchTimeInterval = .seconds(2)
    /// Set by a command that runs until it is stopped (`stubs serve`): a signal is then how it ends, and it exits
    /// with its own status once its task has wound down.
    static let stopsBySignal = Atomic<Bool>(false)

    static func run(_ body: @escaping @Sendable () async -> Int32) async -> Int32 {
        let received = Locked<Int32?>(nil)
        let work = Task { await body() }
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = received.withLock { received -> Bool in
                    defer { if received == nil { received = number } }
                    return received == nil
                }
                if !first { leave(number) }
                work.cancel()
                DispatchQueue.global().asyncAfter(deadline: .now() + patience) { leave(number) }
            }
            source.resume()
            return source
        }
        let status = await work.value
        for source in sources { source.cancel() }
        guard let number = received.withLock({ $0 }), !stopsBySignal.load(ordering: .acquiring) else { return status }
        StandardInput.removeSpooled()
        return 128 + number
    }

    private static func leave(_ number: Int32) -> Never {
        StandardInput.removeSpooled()
        // A command stopped by design (`stubs serve`) ends with success even when its work outlives the patience.
        _exit(stopsBySignal.load(ordering: .acquiring) ? 0 : 128 + number)
    }
}
