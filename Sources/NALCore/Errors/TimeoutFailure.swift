public import Foundation

/// Which time limit a call exceeded, with its value and the URL.
public struct TimeoutFailure: Sendable, Equatable {
    /// The two limits a call has.
    public enum Limit: Sendable, Equatable {
        /// No byte was sent or received for this long: the endpoint's `timeout` or `RequestOptions.timeout`.
        case idle
        /// The whole call, retries included, took this long: `totalTimeout` of the endpoint or the call.
        case total
    }

    /// The limit that was exceeded.
    public let limit: Limit
    /// Its value in seconds.
    public let seconds: TimeInterval
    /// The URL of the request, if known.
    public let url: URL?

    /// Creates a failure.
    public init(limit: Limit, seconds: TimeInterval, url: URL?) {
        self.limit = limit
        self.seconds = seconds
        self.url = url
    }
}
