/// One event of a `text/event-stream` body, as the WHATWG HTML standard's event stream interpretation dispatches
/// it.
public struct ServerSentEvent: Sendable, Equatable, Hashable {
    /// The event type: the last `event:` field of the event, or `"message"` when the stream names none.
    public var event: String
    /// The `data:` lines of the event joined with LF.
    public var data: String
    /// The last event ID in force when the event was dispatched (an `id:` field stays in force for the events after
    /// it); `""` when none.
    public var lastEventID: String
    /// The reconnection time a `retry:` field of this event set, if any.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, lastEventID: String = "", retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }

    /// Whole milliseconds of `duration`, from 0 up to `Int64.max`: a Duration holds seconds no Int64 of
    /// milliseconds can.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        let (sum, overflowedSum) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowed || overflowedSum ? .max : sum
    }

    /// The event as a `text/event-stream` block that parses back to it: one `data:` line per line of `data`, an
    /// `event:` line unless the type is `"message"`, and `id:` and `retry:` lines when set. `lastEventID` is written
    /// only when not empty, so it must be repeated by each event that carries it (as stubs do); CR and LF in the
    /// event type or ID, which no field can carry, are dropped.
    public var encoded: String {
        var text = ""
        if event != "message" { text += "event: \(Self.singleLine(event))\n" }
        if !lastEventID.isEmpty { text += "id: \(Self.singleLine(lastEventID))\n" }
        if let retry {
            text += "retry: \(Self.milliseconds(retry))\n"
        }
        var line = ""
        var afterCR = false
        for character in data.unicodeScalars {
            switch character {
            case "\r":
                text += "data: \(line)\n"
                line = ""
                afterCR = true
                continue
            case "\n":
                if !afterCR { text += "data: \(line)\n" }
                line = ""
            default:
                line.unicodeScalars.append(character)
            }
            afterCR = false
        }
        text += "data: \(line)\n"
        return text + "\n"
    }

    private static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}
