#if os(Linux)
    import Foundation
    import FoundationNetworking

    /// `CurlTransport`'s `CallEntrance`: a call waits there while its origin's line for transfer slots is long
    /// enough (see `CurlAdmission.mayPass`).
    struct CurlCallEntrance: CallEntrance {
        let loop: CurlEventLoop
        /// The transport's idle timeout, for a call whose caller chose none.
        let idleTimeout: TimeInterval

        func ticket(
            for request: URLRequest, idleTimeout chosen: TimeInterval?, deadline: ContinuousClock.Instant?,
            onDeadline: NALError?
        ) -> CallEntranceTicket? {
            // Most calls: no line is long anywhere. A request the transport will refuse goes on, to be refused with
            // the reason.
            guard !loop.passesWithoutLook, let url = request.url, !loop.mayPass(CurlAdmission.Origin(url)),
                let seconds = TransportContext.validIdleTimeout(of: request, chosen: chosen, otherwise: idleTimeout)
            else { return nil }
            let idle = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
            let now = ContinuousClock.now
            let idleDeadline = now + idle
            let totalComesFirst = deadline.map { $0 < idleDeadline } ?? false
            return CallEntranceTicket(
                id: loop.nextWaiterID(), url: url, idleTimeout: idle,
                deadline: totalComesFirst ? deadline ?? idleDeadline : idleDeadline,
                onDeadline: totalComesFirst ? onDeadline : nil, since: now)
        }

        func park(_ ticket: CallEntranceTicket, continuation: CheckedContinuation<NALError?, Never>) {
            loop.parkAtEntrance(
                id: ticket.id, at: CurlAdmission.Origin(ticket.url), url: ticket.url, idleTimeout: ticket.idleTimeout,
                deadline: ticket.deadline, onDeadline: ticket.onDeadline, continuation: continuation)
        }

        func withdraw(_ ticket: CallEntranceTicket) {
            loop.withdrawFromEntrance(id: ticket.id, at: CurlAdmission.Origin(ticket.url))
        }

        func leave(_ request: URLRequest, afterWaiting: Bool) {
            guard loop.hasEntranceWaiters, let url = request.url else { return }
            loop.leave(CurlAdmission.Origin(url), afterWaiting: afterWaiting)
        }
    }
#endif
