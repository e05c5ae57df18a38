/// The requests a stub server received, oldest first, and what each was answered with: at most `capacity`
/// requests (the oldest are dropped), bodies over `bodyLimit` bytes kept as their SHA-256 only.
struct StubJournal: Sendable {
    /// The default number of requests kept: 1,000.
    static let defaultCapacity = 1_000
    /// The default size up to which a body is kept whole: 64 KiB.
    static let defaultBodyLimit = 64 * 1024

    let capacity: Int
    let bodyLimit: Int
    private(set) var requests: [RecordedRequest] = []
    /// What each request was answered with, for `exportHAR()`; `nil` while unanswered or unmatched.
    private(set) var answers: [StubResponse?] = []
    /// The number of the first request kept; numbers count every request ever journaled.
    private var firstNumber = 0

    init(capacity: Int = defaultCapacity, bodyLimit: Int = defaultBodyLimit) {
        self.capacity = max(0, capacity)
        self.bodyLimit = max(0, bodyLimit)
    }

    /// Journals `request` and returns its number.
    /// Appends `request` as `journaled(_:)` made it; its number.
    mutating func append(journaled request: RecordedRequest) -> Int {
        let number = firstNumber + requests.count
        guard capacity > 0 else {
            firstNumber += 1
            return number
        }
        requests.append(request)
        answers.append(nil)
        if requests.count > capacity {
            // Dropped in batches, so that a full journal does not shift its array on every request.
            let dropped = min(requests.count, requests.count - capacity + capacity / 10)
            requests.removeFirst(dropped)
            answers.removeFirst(dropped)
            firstNumber += dropped
        }
        return number
    }

    /// Notes the answer to request `number`, if it is still kept.
    mutating func noteAnswer(_ response: StubResponse, for number: Int) {
        let index = number - firstNumber
        guard answers.indices.contains(index) else { return }
        answers[index] = response
    }

    mutating func removeAll() {
        firstNumber += requests.count
        requests.removeAll()
        answers.removeAll()
    }
}
