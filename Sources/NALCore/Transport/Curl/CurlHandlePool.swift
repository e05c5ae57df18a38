#if os(Linux)
    import CCurl
    import NALLogging
    import Synchronization

    /// The easy handles of one transport. A call that ended well hands its handle back, reset to libcurl's defaults,
    /// and the next call takes it: making and freeing a handle per call costs libcurl a large zeroed allocation and
    /// its buffers each time. A handle whose transfer was cut short (cancelled, timed out, failed) is freed instead,
    /// since a reset does not clear what the cut left: libcurl 7.88 hands the rest of an HTTP/2 stream dropped
    /// mid-body to the handle's next transfer, and libcurl before 7.77 misreads a cut transfer's leftovers.
    ///
    /// What a reset keeps is the handle's TLS session cache (libcurl keeps a few sessions per handle), so a new
    /// connection made with a reused handle may resume a session that handle made earlier, checked against the same
    /// certificate authorities. Connections and the DNS cache belong to the multi handle, and libcurl's cookie, HSTS
    /// and alt-svc engines are never turned on.
    final class CurlHandlePool: Sendable {
        // @unchecked: a spare handle is in no transfer and no multi handle, so no thread uses it until one takes it
        // out from behind the lock.
        private struct Spares: @unchecked Sendable {
            var handles: [UnsafeMutableRawPointer] = []
            /// When a handle last came back: once none has for `idleLifetime`, the spares are freed.
            var lastReturned = ContinuousClock.now
            var idleLifetime = CurlHandlePool.defaultIdleLifetime
        }

        private let spares = Locked(Spares())
        /// Easy handles alive in this process, spares included: made less freed. For tests.
        static let handlesAlive = Atomic<Int>(0)
        /// The most spare handles kept: enough for a round's finished calls to hand theirs to the next calls. Each
        /// keeps libcurl's buffers (tens of KiB) while the transport lives.
        static let maximumSpares = 16
        /// How long spares are kept once no call has ended: a transport that goes quiet gives back their memory.
        static let defaultIdleLifetime: Duration = .seconds(30)

        /// How long spares are kept once no call has ended. For tests.
        var idleLifetime: Duration {
            get { spares.withLock { $0.idleLifetime } }
            set { spares.withLock { $0.idleLifetime = newValue } }
        }

        /// Frees the spares when none has come back for `idleLifetime`; returns how long until they would be, or
        /// `nil` when there are none.
        func freeIdleSpares(now: ContinuousClock.Instant) -> Duration? {
            let (idle, remaining) = spares.withLock { spares -> ([UnsafeMutableRawPointer], Duration?) in
                guard !spares.handles.isEmpty else { return ([], nil) }
                let expiry = spares.lastReturned + spares.idleLifetime
                guard expiry <= now else { return ([], expiry - now) }
                defer { spares.handles = [] }
                return (spares.handles, nil)
            }
            for handle in idle { free(handle) }
            return remaining
        }

        deinit {
            for handle in spares.withLock({ $0.handles }) { free(handle) }
        }

        /// How many handles wait to be reused.
        var spareCount: Int { spares.withLock { $0.handles.count } }

        /// An easy handle in libcurl's default state: a spare when there is one, else a new one; `nil` when libcurl
        /// cannot make one.
        func take() -> UnsafeMutableRawPointer? {
            if let spare = spares.withLock({ $0.handles.popLast() }) { return spare }
            guard let handle = nal_curl_easy_init() else { return nil }
            Self.handlesAlive.add(1, ordering: .relaxed)
            return handle
        }

        /// Takes back `handle`, out of the multi handle, from a transfer that ended well: reset at once, so that no
        /// copy of the last request (its URL, its body) stays behind, and kept unless enough are; else freed.
        func recycle(_ handle: UnsafeMutableRawPointer, at now: ContinuousClock.Instant = .now) {
            nal_curl_easy_reset(handle)
            let kept = spares.withLock { spares in
                guard spares.handles.count < Self.maximumSpares else { return false }
                spares.handles.append(handle)
                spares.lastReturned = now
                return true
            }
            if !kept { free(handle) }
        }

        /// Frees every spare handle.
        func freeSpares() {
            for handle in spares.withLock({ spares in
                defer { spares.handles = [] }
                return spares.handles
            }) {
                free(handle)
            }
        }

        /// Frees `handle`, which no multi handle holds.
        func free(_ handle: UnsafeMutableRawPointer) {
            nal_curl_easy_cleanup(handle)
            Self.handlesAlive.subtract(1, ordering: .relaxed)
        }
    }
#endif
