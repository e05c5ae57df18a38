import Dispatch
public import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Reports when requests begin and end, as Mockingbird's network activity plugin does, and whether any request is
/// in flight, which is what a progress indicator needs.
///
/// ```swift
/// let activity = NetworkActivityMiddleware { change, endpoint in
///     print(change, endpoint)
/// } busyChanged: { busy in
///     Task { @MainActor in spinner.isAnimating = busy }
/// }
/// ```
///
/// `.began` is reported before the request goes on and `.ended` after its outcome, always paired, also when the
/// request fails or is cancelled. `busyChanged` is called only when the number of requests in flight goes from 0 to
/// 1 (`true`) and from 1 to 0 (`false`), in that order, on a serial queue of its own.
public final class NetworkActivityMiddleware: Middleware {
    /// What happened to a request.
    public enum Change: Sendable, Equatable {
        /// The request is about to go on.
        case began
        /// The request has an outcome: a response, an error or a cancellation.
        case ended
    }

    private let onChange: @Sendable (Change, any RemoteService) -> Void
    private let busyChanged: (@Sendable (Bool) -> Void)?
    private let inFlight = Locked(0)
    private let busyQueue = DispatchQueue(label: "dev.nal.middleware.activity")

    /// Creates the middleware. `onChange` runs on the calling task; keep it quick.
    public init(
        _ onChange: @escaping @Sendable (Change, any RemoteService) -> Void,
        busyChanged: (@Sendable (Bool) -> Void)? = nil
    ) {
        self.onChange = onChange
        self.busyChanged = busyChanged
    }

    /// The number of requests in flight through this middleware.
    public var activeCount: Int { inFlight.withLock { $0 } }

    /// Reports `.began`, runs the request, and reports `.ended` whatever happens.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        adjust(by: 1)
        onChange(.began, context.endpoint.originalTarget)
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            end(context.endpoint.originalTarget)
            throw error
        }
        // A streamed call is active until its body ends, not when its head arrives.
        guard let body = response.streamedBody else {
            end(context.endpoint.originalTarget)
            return response
        }
        let endpoint = context.endpoint.originalTarget
        body.whenEnded { [self] _ in end(endpoint) }
        return response
    }

    private func end(_ endpoint: any RemoteService) {
        onChange(.ended, endpoint)
        adjust(by: -1)
    }

    private func adjust(by delta: Int) {
        inFlight.withLock { count in
            let wasBusy = count > 0
            count += delta
            guard let busyChanged, wasBusy != (count > 0) else { return }
            // Queued under the lock, so that 0→1 and 1→0 arrive in the order they happened.
            let busy = count > 0
            busyQueue.async { busyChanged(busy) }
        }
    }
}
