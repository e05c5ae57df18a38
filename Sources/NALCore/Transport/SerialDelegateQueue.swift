#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The delegate queue of `URLSessionTransport`'s session: every delegate callback runs in order on one serial
/// dispatch queue.
///
/// FoundationNetworking delivers each callback (response, every body chunk, completion) with
/// `delegateQueue.addOperation { ... }`. A plain `OperationQueue` wraps each closure in a `BlockOperation` and runs it
/// through its own scheduling, which on Linux costs more than the callback itself; a delegate-based task makes three
/// or more such calls where `data(for:)` makes one. Overriding the closure form keeps the same guarantee, one
/// callback at a time in submission order, at the price of a dispatch.
final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the only state is an immutable serial dispatch queue, which is thread-safe.
    private let queue = DispatchQueue(label: "dev.nal.transport.delegate")

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }
}
