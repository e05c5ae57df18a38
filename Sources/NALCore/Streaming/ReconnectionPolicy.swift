import Foundation

/// How `Client.serverSentEvents(_:reconnect:)` reconnects after a connection drops or fails.
///
/// The wait before a reconnection is the server's last `retry:` time, or `initialDelay` when it sent none. While
/// attempts deliver no event, each further wait is `multiplier` times the last. No wait is shorter than
/// `minimumDelay` or longer than `maximumDelay`, a server's `retry:` included, and none is shorter than 100 ms
/// (`reconnectionFloor`), whatever the policy says: `retry: 0` from a server that sends one event per connection
/// cannot make the client reconnect in a tight loop, even with `minimumDelay: .zero`, and a huge value cannot stall
/// it for ever.
public struct ReconnectionPolicy: Sendable, Equatable {
    /// The wait when the server has not set one with `retry:`.
    public var initialDelay: Duration
    /// The shortest wait, whatever the server's `retry:` says (100 ms by default; Firefox's EventSource keeps
    /// 500 ms). A value under `reconnectionFloor` waits that floor instead.
    public var minimumDelay: Duration
    /// The longest wait; at most a year.
    public var maximumDelay: Duration
    /// How much longer each wait is than the last while attempts deliver no event; from 1 to 1,000.
    public var multiplier: Double
    /// How many reconnections in a row may deliver no event before the sequence throws the last error; `nil` for no
    /// limit.
    public var maximumAttempts: Int?

    /// Creates a policy. A value out of its range is brought to the nearest one in it, with a warning.
    ///
    /// - Parameters:
    ///   - initialDelay: the wait when the server has not set one; from `minimumDelay` to a year.
    ///   - maximumDelay: the longest wait; from `initialDelay` to a year.
    ///   - multiplier: how much longer each wait is than the last; from 1 to 1,000 (NaN counts as 1).
    ///   - maximumAttempts: how many reconnections in a row may deliver no event; 0 or more, or `nil` for no limit.
    ///   - minimumDelay: the shortest wait; from 0 to a year.
    public init(
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30), multiplier: Double = 2,
        maximumAttempts: Int? = nil, minimumDelay: Duration = .milliseconds(100)
    ) {
        let log = CoreLog.request
        let longest = Self.longestDelay
        self.minimumDelay = SettingClamp.clamp(
            minimumDelay, to: .zero...longest, "ReconnectionPolicy minimumDelay", log: log)
        self.initialDelay = SettingClamp.clamp(
            initialDelay, to: self.minimumDelay...longest, "ReconnectionPolicy initialDelay", log: log)
        self.maximumDelay = SettingClamp.clamp(
            maximumDelay, to: self.initialDelay...longest, "ReconnectionPolicy maximumDelay", log: log)
        self.multiplier = SettingClamp.clamp(
            multiplier, to: 1...1000, ifNaN: 1, "ReconnectionPolicy multiplier", log: log)
        self.maximumAttempts = maximumAttempts.map {
            SettingClamp.clamp($0, atLeast: 0, "ReconnectionPolicy maximumAttempts", log: log)
        }
    }

    /// 1 s, doubling while attempts fail, at most 30 s, for ever: a long-lived feed that outlives outages.
    public static let `default` = ReconnectionPolicy()

    /// Never reconnect: the first drop ends the sequence with its error.
    public static let never = ReconnectionPolicy(maximumAttempts: 0)

    /// The wait before reconnection number `failures` in a row (1 for the first after a good connection), given the
    /// server's `retry:` time.
    package func delay(afterFailures failures: Int, serverRetry: Duration?) -> Duration {
        // The properties are public and may hold anything; `Task.sleep` traps past 292 years of nanoseconds.
        let maximum = min(max(Self.reconnectionFloor, maximumDelay), Self.longestDelay)
        let base = min(max(serverRetry ?? initialDelay, minimumDelay, Self.reconnectionFloor), maximum)
        guard failures > 1 else { return base }
        // Backoff grows from `base`, which is never under `reconnectionFloor`, so that a server's `retry: 0` cannot
        // make failing attempts a tight loop; computed in closed form, so that a long outage costs nothing to count.
        let growth = multiplier.isFinite ? min(1000, max(1, multiplier)) : 1
        let seconds = base.seconds * pow(growth, Double(min(failures - 1, 1024)))
        guard seconds.isFinite, seconds < maximum.seconds else { return maximum }
        return .seconds(seconds)
    }

    /// The shortest wait before any reconnection, whatever the policy or the server says: a floor against
    /// reconnection storms (a server answering `retry: 0` and closing made a client without it open 14,000
    /// connections in 8 s).
    public static let reconnectionFloor: Duration = .milliseconds(100)
    /// The longest wait, whatever the policy says: a year, well within what `Task.sleep` can take.
    static let longestDelay = SettingClamp.longestWait
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
