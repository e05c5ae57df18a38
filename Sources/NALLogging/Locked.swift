import Foundation

/// A value guarded by a lock, shared by NAL's modules.
///
/// It uses `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux, ThreadSanitizer cannot see
/// `Mutex`'s futex-based locking, because the Synchronization library is not instrumented, and reports races that
/// are not there. Those reports would hide real ones, in our test runs and in our users'.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
