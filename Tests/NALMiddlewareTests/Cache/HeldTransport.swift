import Foundation
import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A door a task waits at until the test opens it.
final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let opened = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if opened { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Sends through `origin`, holding the request of index `held` (counted from 0) until `release` opens; `arrived`
/// opens when that request gets here. For races: what another call does while one is on the wire.
final class HeldTransport: Transport {
    let origin: any Transport
    let held: Int
    let arrived = Gate()
    let release = Gate()
    private let count = Locked(0)

    init(_ origin: any Transport, holding held: Int) {
        self.origin = origin
        self.held = held
    }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let index = count.withLock { count in
            defer { count += 1 }
            return count
        }
        if index == held {
            arrived.open()
            await release.wait()
        }
        return try await origin.send(request, context: context)
    }
}
