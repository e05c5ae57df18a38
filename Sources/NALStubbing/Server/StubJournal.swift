/// The requests a stub server received, oldest first, and what each was answered with: at most `capacity`
/// requests (the oldest are dropped), bodies over `bodyLimit` bytes kept as their SHA-256 only.
struct StubJournal: Sendable {
    /// The default number of requests kept: 1,000.
    static let defaultCapacity = 1_000
    /// The default size up to which a body is kept whole: 64 KiB.
    static let defaultBodyLimit = 64 * 1024

    let capacity: Int
    let bodyLimit: Int
    /// The requests kept and their answers, in a ring once full: `oldest` is where the oldest is. A request comes
    /// in for every one served, so that dropping the oldest must not move the others.
    private var kept: [RecordedRequest] = []
    /// What each request was answered with, for `exportHAR()`; `nil` while unanswered or unmatched.
    private var keptAnswers: [StubResponse?] = []
    private var oldest = 0
    /// The number of the first request kept; numbers count every request ever journaled.
    private var firstNumber = 0

    init(capacity: Int = defaultCapacity, bodyLimit: Int = defaultBodyLimit) {
        self.capacity = max(0, capacity)
        self.bodyLimit = max(0, bodyLimit)
    }

    /// The requests kept, oldest first.
    var requests: [RecordedRequest] { snapshot.requests }

    /// What each of `requests` was answered with.
    var answers: [StubResponse?] { snapshot.answers }

    /// The journal as it stands, to be put in order outside the server's lock: copying the arrays is a reference
    /// count, while ordering them copies every entry.
    var snapshot: Snapshot { Snapshot(kept: kept, keptAnswers: keptAnswers, oldest: oldest) }

    /// A journal's entries as they stood, in the ring's order.
    struct Snapshot: Sendable {
        let kept: [RecordedRequest]
        let keptAnswers: [StubResponse?]
        let oldest: Int

        /// The requests, oldest first.
        var requests: [RecordedRequest] { oldest == 0 ? kept : Array(kept[oldest...] + kept[..<oldest]) }

        /// What each of `requests` was answered with.
        var answers: [StubResponse?] {
            oldest == 0 ? keptAnswers : Array(keptAnswers[oldest...] + keptAnswers[..<oldest])
        }
    }

    /// Appends `request` as `journaled(_:)` made it; its number.
    mutating func append(journaled request: RecordedRequest) -> Int {
        let number = firstNumber + kept.count
        guard capacity > 0 else {
            firstNumber += 1
            return number
        }
        guard kept.count == capacity else {
            kept.append(request)
            keptAnswers.append(nil)
            return number
        }
        // Full: the newest takes the oldest's place.
        kept[oldest] = request
        keptAnswers[oldest] = nil
        oldest = (oldest + 1) % capacity
        firstNumber += 1
        return number
    }

    /// Notes the answer to request `number`, if it is still kept.
    mutating func noteAnswer(_ response: StubResponse, for number: Int) {
        let index = number - firstNumber
        guard (0..<kept.count).contains(index) else { return }
        keptAnswers[(oldest + index) % kept.count] = response
    }

    mutating func removeAll() {
        firstNumber += kept.count
        kept.removeAll()
        keptAnswers.removeAll()
        oldest = 0
    }
}
