public import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Adds an access token to the requests of endpoints that conform to `AccessTokenAuthorizable`, and refreshes it,
/// once, when a response says it has expired.
///
/// ```swift
/// let tokens = TokenStore()
/// let auth = AccessTokenMiddleware(
///     token: { _ in try await tokens.current() },
///     refresh: { try await tokens.refresh() })
/// let client = Client<GitHub>(middleware: [auth])
/// ```
///
/// The header is `Authorization: <Basic|Bearer|scheme> <token>`. Endpoints that do not conform, or whose type is
/// `.none`, pass through unchanged.
///
/// When `needsRefresh` accepts a response (a 401 by default) and a `refresh` is given, the refresh is single-flight:
/// - exactly one `refresh()` runs at a time; requests that fail meanwhile, and requests that start meanwhile, wait
///   for it;
/// - a request whose token was already replaced by a finished refresh replays without refreshing again;
/// - each failed request is replayed once, with a token fetched again from `token` and the context's `attempt` one
///   higher; a replay that still needs a refresh returns its response as it is, so there are no loops;
/// - a refresh that fails fails every request waiting for it with `NALError.tokenRefreshFailed`: a request whose
///   own response asked for a refresh keeps that response; a request that was waiting to be sent gets the response
///   that started the refresh;
/// - after a refresh fails, none starts again for `refreshCooldown` (5 s by default): a request that needs one
///   then fails at once with the same error and its own response;
/// - waiting for a refresh ends at once when the call is cancelled or reaches its total timeout.
public final class AccessTokenMiddleware: Middleware {
    /// Returns the token to send for an endpoint.
    public typealias TokenProvider = @Sendable (any RemoteService) async throws -> String

    private let token: TokenProvider
    let refresher: TokenRefresher?
    private let needsRefresh: @Sendable (Response) -> Bool

    /// The default `refreshCooldown`: 5 seconds.
    public static let defaultRefreshCooldown: Duration = .seconds(5)

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - token: the current token for an endpoint; called again after every refresh.
    ///   - refresh: renews the token, for example with a refresh token; `nil` never refreshes.
    ///   - refreshCooldown: how long after a failed refresh no other starts; 0 or more (a negative value is raised
    ///     to 0, with a warning).
    ///   - needsRefresh: whether a response means the token has expired; by default a 401.
    public init(
        token: @escaping TokenProvider,
        refresh: (@Sendable () async throws -> Void)? = nil,
        refreshCooldown: Duration = AccessTokenMiddleware.defaultRefreshCooldown,
        needsRefresh: @escaping @Sendable (Response) -> Bool = { $0.statusCode == 401 }
    ) {
        self.token = token
        let cooldown = SettingClamp.clamp(
            refreshCooldown, atLeast: .zero, "AccessTokenMiddleware refreshCooldown", log: MiddlewareLog.middleware)
        refresher = refresh.map { TokenRefresher(cooldown: cooldown, refresh: $0) }
        self.needsRefresh = needsRefresh
    }

    /// Ends the cool-down after a failed refresh: call it when the user has signed in again, so that the next 401
    /// refreshes at once instead of failing until `refreshCooldown` has passed.
    public func resetRefreshCooldown() {
        refresher?.resetCooldown()
    }

    /// Adds the token, sends the request, and refreshes and replays it once when the response asks for it.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        guard let scheme = (context.endpoint.originalTarget as? any AccessTokenAuthorizable)?.accessTokenType.scheme
        else {
            MiddlewareLog.middleware.debug(
                "no access token for \(String(describing: type(of: context.endpoint.originalTarget)), privacy: .public)"
            )
            return try await next(request, context)
        }
        let generation: UInt64
        do {
            generation = try await refresher?.currentGeneration() ?? 0
        } catch let failure as TokenRefresher.Failure {
            throw NALError.tokenRefreshFailed(underlying: failure.underlying, response: failure.trigger)
        }
        let answer = try await next(try await authorized(request, scheme: scheme, context: context), context)
        guard let refresher, needsRefresh(answer) else { return answer }
        // The 401 is kept (by the refresher, in an error) but never returned: a streamed one keeps the start of its
        // body and closes its connection.
        let response = await answer.keepingBodyStart()
        do {
            try await refresher.refresh(replacing: generation, trigger: response)
        } catch let failure as TokenRefresher.Failure {
            throw NALError.tokenRefreshFailed(underlying: failure.underlying, response: response)
        }
        // Saturating: a context may come with any attempt number, `Int.max` included.
        let replayContext = context.forAttempt(context.attempt == .max ? .max : context.attempt + 1)
        let replay = try await next(
            try await authorized(request, scheme: scheme, context: replayContext), replayContext)
        if needsRefresh(replay) {
            MiddlewareLog.middleware.error(
                "\(replay.statusCode) again after the access token was refreshed; returning it without another refresh")
        }
        return replay
    }

    private func authorized(
        _ request: URLRequest, scheme: String, context: TransportContext
    ) async throws
        -> URLRequest
    {
        let current = try await token(context.endpoint.originalTarget)
        var request = request
        try request.setValidatedHeader(scheme.isEmpty ? current : "\(scheme) \(current)", forName: "Authorization")
        return request
    }
}
