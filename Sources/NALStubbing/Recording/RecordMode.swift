/// What a `RecordingTransport` does with its cassette.
public enum RecordMode: Sendable, Equatable {
    /// Record when the cassette does not exist yet; otherwise replay only.
    case once
    /// Replay only: a request with no recorded match fails with an error that names the closest recorded entry.
    case replayOnly
    /// Replay what was recorded, and record requests that were not.
    case recordNew
    /// Record every request anew, replacing the cassette.
    case recordAll
}

/// What must be equal for a request to replay a recorded entry. The method and the URL always are (the query in any
/// order, secrets compared redacted, as they were written).
public struct RecordingMatch: Sendable, Equatable {
    /// Whether the body must be equal too (after redaction).
    public var matchesBody: Bool
    /// Headers whose values must be equal too (after redaction), by name in any letter case.
    public var headers: [String]

    /// Creates matching rules.
    public init(matchesBody: Bool = false, headers: [String] = []) {
        self.matchesBody = matchesBody
        self.headers = headers
    }

    /// Method and URL, the query in any order.
    public static let `default` = RecordingMatch()
}
