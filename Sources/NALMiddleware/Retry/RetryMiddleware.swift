public import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Sends a request again when it fails in a way that a later attempt may not: a 503, a 429, a lost connection.
///
/// - Up to `maxAttempts` attempts in all (3 by default: the request and two retries).
/// - Waits between attempts with exponential backoff and full jitter: a random delay between 0 and
///   `min(maximumDelay, baseDelay × 2^(retry − 1))`. A `Retry-After` header, in seconds (digits only) or as an HTTP
///   date, replaces the backoff; when it asks for longer than `maximumRetryAfter`, the response is returned instead
///   of retrying early (the server said when it would be ready).
/// - Retries only idempotent methods by default (GET, HEAD, PUT, DELETE, OPTIONS, TRACE): a POST that reached the
///   server once must not be sent twice unless you say so.
/// - Never waits past the call's total timeout (`TransportContext.deadline`): it returns the last outcome instead.
/// - Cancellation during a wait ends the call at once with `NALError.cancelled`.
/// - Inner middleware and transports see the attempt number in `TransportContext.attempt`.
public struct RetryMiddleware: Middleware {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Status codes that are retried.
    public var retryableStatusCodes: Set<Int>
    /// `URLError` codes of transport failures that are retried.
    public var retryableErrorCodes: Set<URLError.Code>
    /// Whether a call that hit its idle timeout is retried.
    public var retriesIdleTimeouts: Bool
    /// Methods that are retried.
    public var retryableMethods: Set<HTTPMethod>
    /// The backoff's first step.
    public var baseDelay: Duration
    /// The longest backoff.
    public var maximumDelay: Duration
    /// The longest wait a `Retry-After` header may ask for.
    public var maximumRetryAfter: Duration

    /// The status codes retried by default: 408, 429, 500, 502, 503, 504.
    public static let defaultStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The transport failures retried by default: a lost or refused connection, a lookup that failed, a timeout.
    public static let defaultErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet, .secureConnectionFailed,
    ]
    /// The idempotent methods of RFC 9110 §9.2.2.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// Creates the middleware. A value out of its range is brought to the nearest one in it, with a warning.
    ///
    /// - Parameters:
    ///   - maxAttempts: attempts in all, the first included; at least 1.
    ///   - retryableStatusCodes: status codes that are retried.
    ///   - retryableErrorCodes: `URLError` codes of transport failures that are retried.
    ///   - retriesIdleTimeouts: whether a call that hit its idle timeout is retried.
    ///   - retryableMethods: methods that are retried.
    ///   - baseDelay: the backoff's first step; from 0 to a day.
    ///   - maximumDelay: the longest backoff; from 0 to a day.
    ///   - maximumRetryAfter: the longest wait a `Retry-After` header may ask for; 0 or more.
    public init(
        maxAttempts: Int = 3,
        retryableStatusCodes: Set<Int> = RetryMiddleware.defaultStatusCodes,
        retryableErrorCodes: Set<URLError.Code> = RetryMiddleware.defaultErrorCodes,
        retriesIdleTimeouts: Bool = true,
        retryableMethods: Set<HTTPMethod> = RetryMiddleware.idempotentMethods,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(10),
        maximumRetryAfter: Duration = .seconds(60)
    ) {
        let log = MiddlewareLog.middleware
        self.maxAttempts = SettingClamp.clamp(maxAttempts, atLeast: 1, "RetryMiddleware maxAttempts", log: log)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.retriesIdleTimeouts = retriesIdleTimeouts
        self.retryableMethods = retryableMethods
        self.baseDelay = SettingClamp.clamp(
            baseDelay, to: .zero...Self.longestBackoff, "RetryMiddleware baseDelay", log: log)
        self.maximumDelay = SettingClamp.clamp(
            maximumDelay, to: .zero...Self.longestBackoff, "RetryMiddleware maximumDelay", log: log)
        self.maximumRetryAfter = SettingClamp.clamp(
            maximumRetryAfter, atLeast: .zero, "RetryMiddleware maximumRetryAfter", log: log)
    }

    /// Sends the request, and again after a wait while the outcome is retryable and attempts remain.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        var attempt = 1
        while true {
            // Saturating: a context may come with any attempt number, `Int.max` included.
            let (number, overflow) = context.attempt.addingReportingOverflow(attempt - 1)
            let attemptContext = context.forAttempt(overflow ? .max : number)
            let outcome: Result<Response, NALError>
            do {
                outcome = .success(try await next(request, attemptContext))
            } catch let error as NALError {
                outcome = .failure(error)
            } catch is CancellationError {
                outcome = .failure(.cancelled)
            }
            guard attempt < maxAttempts, retryableMethods.contains(method), let reason = retryReason(outcome),
                let delay = delay(before: attempt + 1, after: outcome, deadline: context.deadline)
            else { return try outcome.get() }
            // The discarded attempt's streamed body must not hold its connection open through the wait.
            let discarded = (try? outcome.get()) ?? outcome.failureResponse
            discarded?.streamedBody?.cancel()
            MiddlewareLog.middleware.info(
                """
                attempt \(attempt) of \(request.httpMethod ?? "GET", privacy: .public) \
                \(request.url?.path ?? "", privacy: .public) \(reason, privacy: .public); \
                attempt \(attempt + 1) in \(delay.description, privacy: .public)
                """)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw NALError.cancelled
            }
            attempt += 1
        }
    }

    /// Why `outcome` is worth another attempt, or `nil`.
    func retryReason(_ outcome: Result<Response, NALError>) -> String? {
        switch outcome {
        case .success(let response):
            return retryableStatusCodes.contains(response.statusCode) ? "got \(response.statusCode)" : nil
        case .failure(.transport(let error)):
            return retryableErrorCodes.contains(error.code) ? "failed with URLError \(error.code.rawValue)" : nil
        case .failure(.timedOut(let timeout)):
            return retriesIdleTimeouts && timeout.limit == .idle ? "hit its idle timeout" : nil
        case .failure:
            return nil
        }
    }

    /// The wait before attempt `next`, or `nil` when there is to be no other attempt: it would end past
    /// `deadline`, or a `Retry-After` asks for longer than `maximumRetryAfter`.
    func delay(
        before next: Int, after outcome: Result<Response, NALError>, deadline: ContinuousClock.Instant?
    )
        -> Duration?
    {
        let wait: Duration
        if case .success(let response) = outcome, let retryAfter = RetryAfter.delay(in: response) {
            guard retryAfter <= maximumRetryAfter else { return nil }
            wait = retryAfter
        } else {
            wait = backoff(before: next)
        }
        if let deadline, ContinuousClock.now + wait >= deadline { return nil }
        return wait
    }

    /// The wait before attempt `next` (2 for the first retry) when no `Retry-After` says otherwise: full jitter,
    /// uniformly random between 0 and the exponential step, capped at `maximumDelay` (and at a day, whatever it
    /// says). Negative settings count as zero; nothing here can overflow.
    func backoff(before next: Int) -> Duration {
        // Compared before subtracting: `next - 2` would overflow for `Int.min`.
        let exponent = next <= 2 ? 0 : Int64(min(next - 2, 30))
        let base = Self.nanoseconds(baseDelay)
        let step = base > Self.dayInNanoseconds >> exponent ? Self.dayInNanoseconds : base << exponent
        let capped = min(step, Self.nanoseconds(maximumDelay), Self.dayInNanoseconds)
        return .nanoseconds(Int64.random(in: 0...max(0, capped)))
    }

    private static let dayInNanoseconds: Int64 = 86_400 * 1_000_000_000
    /// The longest backoff step: a day.
    private static let longestBackoff: Duration = .seconds(86_400)

    /// A duration in nanoseconds, from 0 to a day.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < 86_400 else { return dayInNanoseconds }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension Result where Success == Response, Failure == NALError {
    /// The response an error carries, if any.
    fileprivate var failureResponse: Response? {
        if case .failure(let error) = self { return error.response }
        return nil
    }
}
