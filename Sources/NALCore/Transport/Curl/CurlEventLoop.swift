#if os(Linux)
    import CCurl
    import Foundation
    import NALLogging
    import Synchronization

    extension Int32 {
        /// `nil` for 0.
        fileprivate var nonZero: Int32? { self == 0 ? nil : self }
    }

    /// The thread that drives libcurl's multi interface for one `CurlTransport`: it adds and removes handles, runs
    /// `curl_multi_perform`, hands finished transfers their result, and ends transfers that have been idle too long.
    ///
    /// Everything libcurl is told happens on this thread; other threads only queue commands, and wake it with
    /// `curl_multi_wakeup` when it waits. It waits in `curl_multi_poll`, never on a Swift task's thread.
    ///
    /// Its own work per round grows with what happened in it, not with how many transfers run: finished calls are
    /// resumed together once libcurl has let go of their handles, and the running transfers are scanned for
    /// idleness only when the earliest idle deadline has come.
    ///
    /// It is also a task executor (`CurlTransport.executor`): jobs of tasks that prefer it run on this thread at the
    /// start of each round, so that a call made there, and the code around it, never crosses to another thread.
    final class CurlEventLoop: TaskExecutor, @unchecked Sendable {
        private struct Queue: Sendable {
            var commands: [CurlTransfer] = []
            var stops: [CurlTransfer] = []
            var resumes: [CurlTransfer] = []
            /// Jobs of tasks that prefer this loop as their executor.
            var jobs: [UnownedJob] = []
            var shuttingDown = false
            /// Shutting down cancels the transfers still running instead of letting them finish.
            var cancelsRunning = false
            /// Who waits for the loop to end (`shutDownNow`).
            var endWaiters: [CheckedContinuation<Void, Never>] = []
            /// The loop has ended: jobs go to the global executor instead.
            var hasEnded = false
            /// The loop is in, or about to enter, `curl_multi_poll`: the next command must wake it. Otherwise it
            /// takes the command on its next round, and a wake-up would cost a write and a spurious round.
            var loopIsWaiting = false
            /// Which calls may hand libcurl a transfer now, and those that wait for a slot (see `CurlAdmission`).
            var admission: CurlAdmission

            /// Why a call may not start now, as `start` tells one: after `shutDownNow`, the transport is unavailable;
            /// while the loop ends gracefully, the call is cancelled.
            var refusal: NALError? {
                if cancelsRunning { return .transportUnavailable(CurlTransport.shutDownMessage) }
                return shuttingDown ? .cancelled : nil
            }

            /// No command waits. Shutting down is not counted: `shutDown()` always wakes the loop.
            var isEmpty: Bool { commands.isEmpty && stops.isEmpty && resumes.isEmpty && jobs.isEmpty }

            /// Whether the command just queued must wake the loop; only the first command of a wait does.
            mutating func needsWakeUp() -> Bool {
                defer { loopIsWaiting = false }
                return loopIsWaiting
            }
        }

        // @unchecked: `multi` is used by the loop thread only, apart from `curl_multi_wakeup`, which libcurl allows
        // from any thread; `running` is the loop thread's alone; `queue` is behind its lock.
        private let multi: UnsafeMutableRawPointer
        private let queue: Locked<Queue>
        /// The transfers whose handles are in the multi handle, by handle; holding them here keeps the pointers the
        /// callbacks use valid.
        private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        /// No running transfer can be idle past its timeout before this instant: activity only moves a deadline
        /// later, so the running transfers are scanned again only then (or `nil`: none to watch). The loop's alone.
        private var nextIdleCheck: ContinuousClock.Instant?
        /// Whether the loop freed the multi handle as it ended; the loop's thread sets it, `deinit` reads it after.
        private let multiFreed = Atomic<Bool>(false)
        /// A multi-level failure a test asked for (`injectMultiFailure`), or 0.
        private let injectedFailure = Atomic<Int32>(0)
        /// How many handles are in the multi handle, for any thread to read.
        private let handlesInLibcurl = Atomic<Int>(0)
        /// The most handles the multi handle has held at once; the loop thread writes it. For tests.
        private let peakHandlesInLibcurl = Atomic<Int>(0)
        /// The origins whose slots transfers gave back during this round: the loop hands them to the next waiting
        /// calls in the lock it takes before it waits. The loop's alone.
        private var freedSlots: [CurlAdmission.Origin] = []
        /// The id of the last call that waited for a slot or at an entrance (one counter: ids order both lines).
        private let lastWaiterID = Atomic<UInt64>(0)
        /// The transfers libcurl reported done in one round, kept to reuse the storage.
        private var done: [(transfer: CurlTransfer, code: Int32)] = []
        /// Where the transfers' easy handles come from, and where those of transfers that ended well go back.
        let handles = CurlHandlePool()

        /// The loop thread's name, as `/proc/<pid>/task/<tid>/comm` shows it.
        static let threadName = "nal.curl"
        /// The longest `curl_multi_poll` wait, so that idle deadlines are checked even when nothing happens.
        private static let longestWait = 250
        /// The `curl_multi_poll` wait with no transfer running, in milliseconds.
        private static let waitWhenIdle = 60_000

        /// The admission's counts, read without the lock.
        private let counts: CurlAdmission.Counts

        init(maximumConnectionsPerHost: Int) throws(NALError) {
            guard let multi = nal_curl_multi_init() else {
                throw .transportUnavailable("libcurl could not make a multi handle (curl_multi_init failed)")
            }
            self.multi = multi
            let admission = CurlAdmission(connectionsPerHost: maximumConnectionsPerHost)
            counts = admission.counts
            queue = Locked(Queue(admission: admission))
            _ = nal_curl_multi_setopt_long(multi, CurlMultiOption.pipelining.rawValue, CurlValue.multiplex)
            _ = nal_curl_multi_setopt_long(
                multi, CurlMultiOption.maximumHostConnections.rawValue, max(1, maximumConnectionsPerHost))
            let thread = Thread { [self] in
                // Named from inside: Foundation keeps a name set before start to itself, and `top -H`, `perf` and
                // debuggers show the thread's name as the system knows it.
                nal_name_current_thread(Self.threadName)
                run()
            }
            thread.name = Self.threadName
            thread.start()
        }

        // The loop frees the multi handle when it ends (closing its connections); the thread's closure keeps the
        // loop alive until `run()` has returned, so this runs after it.
        deinit {
            if !multiFreed.load(ordering: .acquiring) { _ = nal_curl_multi_cleanup(multi) }
        }

        /// Wakes the loop from `curl_multi_poll`, unless it has ended (and freed the multi handle): under the queue's
        /// lock, which the loop holds when it marks its end.
        private func wakeUnlessEnded(_ queue: inout Queue) {
            if !queue.hasEnded { _ = nal_curl_multi_wakeup(multi) }
        }

        /// Wakes a loop that waits when the admission's next check moved from `earlier`: a waiter's deadline, or an
        /// entrance's starvation, that it must not sleep past.
        private func wakeIfNextCheckMoved(_ queue: inout Queue, from earlier: ContinuousClock.Instant?) {
            if queue.admission.nextCheck != earlier, queue.needsWakeUp() { wakeUnlessEnded(&queue) }
        }

        /// Whether the loop's thread has ended its loop.
        var hasEnded: Bool { queue.withLock { $0.hasEnded } }

        /// How many transfers libcurl holds now: a call's handle leaves before the call returns.
        var transfersInLibcurl: Int { handlesInLibcurl.load(ordering: .relaxed) }

        /// The most transfers libcurl has held at once.
        var peakTransfersInLibcurl: Int { peakHandlesInLibcurl.load(ordering: .relaxed) }

        /// How many calls wait for a slot.
        var waitingCallCount: Int { counts.waiting.load(ordering: .relaxed) }

        /// How many calls wait at the entrance.
        var entranceWaitingCount: Int { counts.entrance.load(ordering: .relaxed) }

        /// Returns once the call may hand libcurl a transfer to `origin`: at once while the origin has a slot free and
        /// no call waits before this one, otherwise when an earlier transfer there ends. The call then holds a slot,
        /// which its transfer gives back (`start`, or `release` when it never makes one).
        ///
        /// While it waits the call holds no easy handle. It ends with `.cancelled` as soon as its task is cancelled,
        /// and with the error `start` would give when the transport shuts down. A total timeout counts the wait (the
        /// `Client` cancels the call at its deadline); the idle timeout bounds the wait too, so that a call never
        /// waits forever behind transfers that do not end (a stream nobody reads): it is the limit that libcurl
        /// applied when it held such calls itself, since a queued handle moves no byte.
        ///
        /// A call that waited before it reached the transport (`waited`, at the `Client`'s entrance) waits here that
        /// much less than its idle timeout: the two waits together last no longer than one. `fromEntrance`: it was
        /// let in at the entrance, so its arrival shows the calls let in are moving.
        func admit(
            to origin: CurlAdmission.Origin, url: URL, idleTimeout: Duration,
            waited: Duration? = nil, fromEntrance: Bool = false
        ) async throws(NALError) {
            let entry = queue.withLock { queue -> Result<CurlAdmission.Entry, NALError> in
                if let refusal = queue.refusal { return .failure(refusal) }
                return .success(queue.admission.enter(origin))
            }
            switch entry {
            case .success(.admitted): return
            case .failure(let refusal): throw refusal
            case .success(.full): break
            }
            let id = nextWaiterID()
            let failure = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CurlAdmission.Continuation) in
                    // Under the lock that `onCancel` takes: a cancellation either finds the call waiting, or comes
                    // before it and is seen here.
                    let decided = queue.withLock { queue -> NALError?? in
                        if let refusal = queue.refusal { return .some(refusal) }
                        if Task.isCancelled { return .some(.cancelled) }
                        // A slot came free since the first try.
                        if case .admitted = queue.admission.enter(origin) { return .some(nil) }
                        let waiter = CurlAdmission.Waiter(
                            id: id, deadline: .now + max(idleTimeout - (waited ?? .zero), .zero),
                            idleTimeout: idleTimeout, url: url,
                            continuation: continuation)
                        queue.admission.park(waiter, at: origin, fromEntrance: fromEntrance)
                        // A loop that waits may wait past this call's deadline.
                        if queue.needsWakeUp() { wakeUnlessEnded(&queue) }
                        return nil
                    }
                    if let decided { continuation.resume(returning: decided) }
                }
            } onCancel: {
                var letIn: [CurlAdmission.Continuation] = []
                let waiter = queue.withLock { queue in
                    let earliestBefore = queue.admission.nextCheck
                    defer {
                        queue.admission.pump(origin, now: .now, into: &letIn)
                        // The entrance may have started to starve: the loop must wake to end it.
                        wakeIfNextCheckMoved(&queue, from: earliestBefore)
                    }
                    return queue.admission.withdraw(id, at: origin)
                }
                waiter?.resume(returning: .cancelled)
                for call in letIn { call.resume(returning: nil) }
            }
            if let failure { throw failure }
        }

        /// Gives back the slot of a call that was admitted but made no transfer (setting it up failed).
        func release(_ origin: CurlAdmission.Origin) {
            var resumed: [CurlAdmission.Continuation] = []
            queue.withLock { queue in
                let earliestBefore = queue.admission.nextCheck
                if let next = queue.admission.release(origin) { resumed.append(next) }
                queue.admission.pump(origin, now: .now, into: &resumed)
                wakeIfNextCheckMoved(&queue, from: earliestBefore)
            }
            for call in resumed { call.resume(returning: nil) }
        }

        /// Whether a `Client`'s call to `origin` may go on into its chain of frames now (see
        /// `CurlAdmission.mayPass`); also when the loop cannot run it, so that `send` says why.
        func mayPass(_ origin: CurlAdmission.Origin) -> Bool {
            queue.withLock { $0.refusal != nil || $0.admission.mayPass(origin) }
        }

        /// Whether every call may go on now without a look at its origin's line (`CurlAdmission.Counts`).
        var passesWithoutLook: Bool { counts.passWithoutLook }

        /// Whether any call waits at an entrance: a call that ends need not take the lock otherwise.
        var hasEntranceWaiters: Bool { counts.entrance.load(ordering: .relaxed) > 0 }

        /// Parks a call at `origin`'s entrance: `continuation` is resumed with `nil` when it may go on, with
        /// `.cancelled` when its task is cancelled (`withdrawFromEntrance`) or the transport shuts down, and with its
        /// timeout at the waiter's deadline. A waiting call holds only its first frames and a few words here, where
        /// a call waiting for a slot holds its whole chain.
        func parkAtEntrance(
            id: UInt64, at origin: CurlAdmission.Origin, url: URL, idleTimeout: Duration,
            deadline: ContinuousClock.Instant, onDeadline: NALError?, continuation: CurlAdmission.Continuation
        ) {
            // Under the lock that `withdrawFromEntrance` takes: a cancellation either finds the call waiting, or
            // comes before it and is seen here.
            let decided = queue.withLock { queue -> NALError?? in
                if queue.refusal != nil { return .some(nil) }
                if Task.isCancelled { return .some(.cancelled) }
                if queue.admission.mayPass(origin) { return .some(nil) }
                let waiter = CurlAdmission.Waiter(
                    id: id, deadline: deadline, idleTimeout: idleTimeout, url: url, onDeadline: onDeadline,
                    continuation: continuation)
                let earliestBefore = queue.admission.nextCheck
                queue.admission.parkAtEntrance(waiter, at: origin, now: .now)
                // A loop that waits must wake for this call's deadline, or the entrance's starvation.
                wakeIfNextCheckMoved(&queue, from: earliestBefore)
                return nil
            }
            if let decided { continuation.resume(returning: decided) }
        }

        /// Ends the wait of a call whose task was cancelled at `origin`'s entrance, unless it has ended already.
        func withdrawFromEntrance(id: UInt64, at origin: CurlAdmission.Origin) {
            let waiter = queue.withLock { queue in
                let earliestBefore = queue.admission.nextCheck
                defer { wakeIfNextCheckMoved(&queue, from: earliestBefore) }
                return queue.admission.withdrawFromEntrance(id, at: origin)
            }
            waiter?.resume(returning: .cancelled)
        }

        /// A new id for a waiting call.
        func nextWaiterID() -> UInt64 { lastWaiterID.add(1, ordering: .relaxed).newValue }

        /// Notes that a call that went past `origin`'s entrance has ended: calls waiting there may go on.
        /// `afterWaiting`: it had waited there, so the calls let in are moving.
        func leave(_ origin: CurlAdmission.Origin, afterWaiting: Bool) {
            var letIn: [CurlAdmission.Continuation] = []
            queue.withLock { queue in
                let earliestBefore = queue.admission.nextCheck
                let now = ContinuousClock.now
                // A call let in that ended: a starvation counts from now.
                if afterWaiting { queue.admission.noteProgress(of: origin, now: now) }
                queue.admission.pump(origin, now: now, into: &letIn)
                // The entrance may have started to starve: the loop must wake to end it.
                wakeIfNextCheckMoved(&queue, from: earliestBefore)
            }
            for call in letIn { call.resume(returning: nil) }
        }

        /// Queues `transfer` to start.
        func start(_ transfer: CurlTransfer) {
            transfer.eventLoop = self
            var refused: NALError?
            var next: CurlAdmission.Continuation?
            command { queue in
                if let refusal = queue.refusal {
                    refused = refusal
                    // Never started: its slot goes back now.
                    if let origin = transfer.slot { next = queue.admission.release(origin) }
                    // Nobody waits at the entrance once the loop refuses calls (shutting down took them out).
                } else {
                    queue.commands.append(transfer)
                }
            }
            next?.resume(returning: nil)
            if let refused { transfer.finish(.failure(refused)) }
        }

        /// Queues `transfer`, paused while its stream's consumer was behind, to receive again.
        func resume(_ transfer: CurlTransfer) {
            command { $0.resumes.append(transfer) }
        }

        /// Queues `transfer` to be removed; it then ends with `.cancelled`, unless it had ended already.
        func stop(_ transfer: CurlTransfer) {
            command { $0.stops.append(transfer) }
        }

        /// Ends the loop once the transfers still running have ended (a streamed body may outlive its transport, as
        /// with URLSession's `finishTasksAndInvalidate`); no new transfer starts. The thread then frees libcurl's
        /// handles.
        func shutDown() {
            // Always a wake-up: a loop in the middle of a round read the flag before it was set, and would wait.
            let waiters = queue.withLock { queue in
                queue.shuttingDown = true
                wakeUnlessEnded(&queue)
                return queue.admission.removeAllWaiters()
            }
            // As a call that comes now is told: it would not start.
            for waiter in waiters { waiter.resume(returning: .cancelled) }
        }

        /// Ends the loop now: the transfers still running end with `.cancelled` (streams included), no new one
        /// starts, and this returns once the loop's thread has ended and the spare handles are freed.
        func shutDownNow() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let (ended, waitingCalls) = queue.withLock { queue in
                    queue.shuttingDown = true
                    queue.cancelsRunning = true
                    if !queue.hasEnded { queue.endWaiters.append(waiter) }
                    wakeUnlessEnded(&queue)
                    return (queue.hasEnded, queue.admission.removeAllWaiters())
                }
                // Calls waiting for a slot end as calls queued to start do: cancelled.
                for call in waitingCalls { call.resume(returning: .cancelled) }
                if ended { waiter.resume() }
            }
        }

        /// Runs `job` on the loop's thread in its next round; once the loop has ended, on the global executor.
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            var ended = false
            command { queue in
                if queue.hasEnded { ended = true } else { queue.jobs.append(job) }
            }
            if ended { globalConcurrentExecutor.enqueue(job) }
        }

        /// Queues a command, and wakes the loop if it waits.
        private func command(_ add: (inout Queue) -> Void) {
            queue.withLock { queue in
                add(&queue)
                if queue.needsWakeUp() { wakeUnlessEnded(&queue) }
            }
        }

        // MARK: Loop thread

        private func run() {
            let executor = asUnownedTaskExecutor()
            while true {
                // Jobs first: the calls they make are among this round's commands.
                let jobs = queue.withLock { queue in
                    queue.loopIsWaiting = false
                    defer { queue.jobs = [] }
                    return queue.jobs
                }
                for job in jobs { job.runSynchronously(on: executor) }
                let (starts, stops, resumes, shuttingDown, cancelsRunning) = queue.withLock { queue in
                    defer {
                        queue.commands = []
                        queue.stops = []
                        queue.resumes = []
                    }
                    return (queue.commands, queue.stops, queue.resumes, queue.shuttingDown, queue.cancelsRunning)
                }
                if !cancelsRunning { for transfer in starts { add(transfer) } }
                for transfer in stops {
                    // Out of the multi handle first: once the caller hears of the end, no callback writes again
                    // (a download's partial file, which the next call may resume at once).
                    remove(transfer)
                    transfer.finish(.failure(.cancelled))
                    transfer.failStream(.cancelled)
                }
                for transfer in resumes { resumeNow(transfer) }
                if cancelsRunning {
                    // Transfers queued to start never start; those running end as a stop ends them.
                    for transfer in starts {
                        giveBackSlot(of: transfer)
                        transfer.finish(.failure(.cancelled))
                    }
                    for transfer in Array(running.values) {
                        remove(transfer)
                        transfer.finish(.failure(.cancelled))
                        transfer.failStream(.cancelled)
                    }
                }
                // Jobs still queued, and any that come later, run on the global executor once the loop has ended:
                // a task that keeps yielding on the loop must not keep a dropped transport's thread alive.
                if shuttingDown, running.isEmpty { break }
                var active: Int32 = 0
                let performed =
                    injectedFailure.exchange(0, ordering: .relaxed).nonZero ?? nal_curl_multi_perform(multi, &active)
                // CURLM_CALL_MULTI_PERFORM (-1), from libcurl before 7.20, only asks for another round.
                if performed != CurlValue.ok, performed != -1 {
                    failRunning(multiCode: performed, in: "curl_multi_perform")
                }
                var message = nal_curl_done()
                while nal_curl_multi_next_done(multi, &message) != 0 {
                    guard let easy = message.easy, let transfer = running[easy] else { continue }
                    done.append((transfer, message.result))
                }
                // libcurl's work for every finished transfer first, then the callers together: the first resumed
                // call wakes a pool thread, and the others find it awake.
                for (transfer, code) in done { remove(transfer, endedWell: code == CurlValue.ok) }
                for (transfer, code) in done { transfer.complete(code: code) }
                done.removeAll(keepingCapacity: true)
                // With nothing running there is no deadline to check: libcurl's own timers, or a command, wake it.
                // Shutting down, the last transfer just ended: the next round ends the loop, with no wait first.
                if shuttingDown, running.isEmpty { continue }
                var wait = running.isEmpty ? Self.waitWhenIdle : endIdleTransfers()
                // Spares that have waited long enough are freed; the wait ends when the rest would be.
                if let untilFreed = handles.freeIdleSpares(now: .now) {
                    wait = min(wait, Self.milliseconds(untilFreed))
                }
                let (mayWait, admitted, expired) = queue.withLock { queue in
                    // The slots given back go to the calls that wait for them, in the order they came.
                    // The line for slots is shorter: calls waiting at the entrance may go on.
                    var admitted: [CurlAdmission.Continuation] = []
                    let now = ContinuousClock.now
                    for origin in freedSlots {
                        if let next = queue.admission.release(origin) { admitted.append(next) }
                        queue.admission.pump(origin, now: now, into: &admitted)
                    }
                    let expired = queue.admission.expire(now: now)
                    if let deadline = queue.admission.nextCheck {
                        wait = min(wait, Self.milliseconds(deadline - now))
                    }
                    queue.loopIsWaiting = queue.isEmpty
                    return (queue.loopIsWaiting, admitted, expired)
                }
                freedSlots.removeAll(keepingCapacity: true)
                // Each admitted call sets up its transfer and queues its start, which wakes the loop.
                for call in admitted { call.resume(returning: nil) }
                for (call, timeout) in expired { call.resume(returning: timeout) }
                guard mayWait else { continue }
                var ready: Int32 = 0
                let polled = nal_curl_multi_poll(multi, Int32(wait), &ready)
                if polled != CurlValue.ok {
                    failRunning(multiCode: polled, in: "curl_multi_poll")
                    // A wait that fails at once would fail again at once: not a busy loop.
                    usleep(10_000)
                }
            }
            // Transfers queued after the last round never started; jobs run elsewhere from now on. No call waits for
            // a slot any more (shutting down took them all out), so the slots given back admit nobody.
            let (late, jobs, waiters) = queue.withLock { queue in
                queue.hasEnded = true
                for origin in freedSlots + queue.commands.compactMap(\.slot) {
                    _ = queue.admission.release(origin)
                }
                defer {
                    queue.commands = []
                    queue.jobs = []
                    queue.endWaiters = []
                }
                return (queue.commands, queue.jobs, queue.endWaiters)
            }
            freedSlots = []
            for transfer in late { transfer.finish(.failure(.cancelled)) }
            for job in jobs { globalConcurrentExecutor.enqueue(job) }
            // Nothing will take a spare again, and nothing wakes the multi handle now (`hasEnded`): its connections
            // close with it.
            handles.freeSpares()
            _ = nal_curl_multi_cleanup(multi)
            multiFreed.store(true, ordering: .releasing)
            for waiter in waiters { waiter.resume() }
        }

        private func add(_ transfer: CurlTransfer) {
            // Cancelled before it started: it never reaches libcurl.
            guard !transfer.isFinished, let handle = transfer.handle else { return giveBackSlot(of: transfer) }
            let code = nal_curl_multi_add_handle(multi, handle)
            guard code == CurlValue.ok else {
                giveBackSlot(of: transfer)
                return transfer.finish(.failure(.transport(CurlCode.urlError(CurlCode.failedInit, url: transfer.url))))
            }
            running[handle] = transfer
            let inLibcurl = handlesInLibcurl.add(1, ordering: .relaxed).newValue
            if inLibcurl > peakHandlesInLibcurl.load(ordering: .relaxed) {
                peakHandlesInLibcurl.store(inLibcurl, ordering: .relaxed)
            }
            watchIdleness(from: transfer.lastActivity, of: transfer)
        }

        /// Notes that `transfer` has left the loop's hands (out of libcurl, or never in it), whatever ended it: its
        /// slot goes to the next waiting call before the loop waits again. Called once per transfer: from `remove`,
        /// for a transfer that was running, or where a transfer queued to start is dropped.
        private func giveBackSlot(of transfer: CurlTransfer) {
            if let origin = transfer.slot { freedSlots.append(origin) }
        }

        /// Brings the next idle scan forward to when `transfer`, last active at `instant`, may be idle too long.
        private func watchIdleness(from instant: ContinuousClock.Instant, of transfer: CurlTransfer) {
            let deadline = instant + transfer.idleTimeout
            if nextIdleCheck.map({ deadline < $0 }) ?? true { nextIdleCheck = deadline }
        }

        /// Lets a paused transfer receive again; libcurl may hand it the bytes it held at once.
        private func resumeNow(_ transfer: CurlTransfer) {
            guard let handle = transfer.handle, running[handle] != nil, transfer.isPaused else { return }
            transfer.resumeReceiving()
            watchIdleness(from: transfer.lastActivity, of: transfer)
            _ = nal_curl_easy_pause(handle, CurlValue.resume)
        }

        /// Takes the transfer's handle out of the multi handle, then frees it, or gives it back to be reused when the
        /// transfer `endedWell` (libcurl finished it without an error). The callbacks cannot run for it again.
        private func remove(_ transfer: CurlTransfer, endedWell: Bool = false) {
            guard let handle = transfer.handle, running.removeValue(forKey: handle) != nil else { return }
            handlesInLibcurl.subtract(1, ordering: .relaxed)
            giveBackSlot(of: transfer)
            _ = nal_curl_multi_remove_handle(multi, handle)
            if endedWell { transfer.recycleHandle() } else { transfer.release() }
        }

        /// Fails the transfers that have been idle past their timeout; returns how long to wait for the next
        /// deadline, in milliseconds. The running transfers are scanned only once the earliest deadline the last scan
        /// found has come: until then none can have passed its own.
        private func endIdleTransfers() -> Int {
            let now = ContinuousClock.now
            let longest = Duration.milliseconds(Self.longestWait)
            if let next = nextIdleCheck, next > now { return Self.milliseconds(min(longest, next - now)) }
            nextIdleCheck = nil
            // A paused transfer waits for its consumer, which is not idleness; it is watched again when it resumes.
            // Not a copy of the running transfers: only the idle ones are collected, then removed.
            var idle: [CurlTransfer] = []
            for transfer in running.values where !transfer.isPaused {
                let deadline = transfer.lastActivity + transfer.idleTimeout
                if deadline <= now {
                    idle.append(transfer)
                } else {
                    watchIdleness(from: transfer.lastActivity, of: transfer)
                }
            }
            for transfer in idle {
                // Out of libcurl's hands before the caller hears of the end, as for a stop.
                remove(transfer)
                let seconds =
                    Double(transfer.idleTimeout.components.seconds)
                    + Double(transfer.idleTimeout.components.attoseconds) / 1e18
                let failure = NALError.timedOut(TimeoutFailure(limit: .idle, seconds: seconds, url: transfer.url))
                transfer.finish(.failure(failure))
                transfer.failStream(failure)
            }
            return Self.milliseconds(min(longest, nextIdleCheck.map { $0 - now } ?? longest))
        }

        /// Fails every running transfer with the multi handle's failure, instead of leaving them to their idle
        /// timeouts: libcurl can no longer say how they stand. New transfers are tried again on the next round.
        private func failRunning(multiCode code: Int32, in function: String) {
            let said = nal_curl_multi_strerror(code).map { String(cString: $0) } ?? "unknown error"
            let failing = Array(running.values)
            for transfer in failing {
                remove(transfer)
                let failure = NALError.transport(
                    URLError(
                        .cannotLoadFromNetwork,
                        userInfo: [
                            NSLocalizedDescriptionKey: "libcurl's \(function) failed: \(said) (CURLMcode \(code))",
                            NSURLErrorFailingURLErrorKey: transfer.url,
                        ]))
                transfer.finish(.failure(failure))
                transfer.failStream(failure)
            }
            if !failing.isEmpty {
                CoreLog.request.error(
                    "libcurl's \(function, privacy: .public) failed (\(said, privacy: .public), CURLMcode \(code)): \(failing.count) calls failed"
                )
            }
        }

        /// Makes the next round's `curl_multi_perform` report `code` instead of running. For tests of what a
        /// multi-level failure does.
        package func injectMultiFailure(_ code: Int32) {
            injectedFailure.store(code, ordering: .relaxed)
            queue.withLock { wakeUnlessEnded(&$0) }
        }

        /// A wait in whole milliseconds for `curl_multi_poll`, at least 1.
        private static func milliseconds(_ wait: Duration) -> Int {
            let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            return Int(max(1, milliseconds))
        }
    }
#endif
