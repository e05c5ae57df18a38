public import Foundation

/// Options for one call.
public struct RequestOptions: Sendable {
    /// The largest timeout NAL accepts, in seconds: 7 days. Larger values, NaN and infinity are refused with
    /// `InvalidRequestReason.invalidTimeout` (FoundationNetworking crashes on them).
    public static let maximumTimeout: TimeInterval = 7 * 24 * 3600

    /// The idle timeout for this call in seconds, overriding the endpoint's `timeout`: the call fails with
    /// `NALError.timedOut` when nothing is sent or received for this long. Millisecond precision.
    public var timeout: TimeInterval?
    /// The total timeout for this call in seconds, overriding the endpoint's `totalTimeout`: the whole call,
    /// middleware and retries included, must end within it.
    public var totalTimeout: TimeInterval?
    /// The most bytes of body to keep in memory for this call, overriding the transport's limit; keep it below what
    /// the process may use, as that limit's documentation says. 0 or more: a negative value fails the call with
    /// `InvalidRequestReason.invalidSizeLimit`.
    public var maximumResponseSize: Int?

    /// Creates options; `nil` keeps the endpoint's or transport's setting.
    public init(timeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil, maximumResponseSize: Int? = nil) {
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// Throws `InvalidRequestReason.invalidTimeout` unless `value` is `nil` or a finite number of seconds in
    /// `0 < value <= maximumTimeout`.
    static func validate(_ value: TimeInterval?, setting: String) throws(NALError) {
        guard let value else { return }
        guard value.isFinite, value > 0, value <= maximumTimeout else {
            throw .invalidRequest(.invalidTimeout(setting: setting, value: value))
        }
    }

    /// Throws `InvalidRequestReason.invalidSizeLimit` unless `value` is `nil` or a number of bytes, 0 or more.
    static func validate(size value: Int?, setting: String) throws(NALError) {
        guard let value, value < 0 else { return }
        throw .invalidRequest(.invalidSizeLimit(setting: setting, value: value))
    }
}
