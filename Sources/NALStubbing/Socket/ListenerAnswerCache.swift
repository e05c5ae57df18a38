import NALLogging

/// The bytes of a listener's answers that come out the same every time: those of a stub that answers every request
/// alike, to requests alike in what shapes the answer (HEAD or not, HTTP/1.0 or 1.1, keep-alive or not). Writing a
/// head cost more than the rest of serving a small answer. The caller keeps no answer with a `Location`: where it
/// points depends on the stubs registered at the time.
final class ListenerAnswerCache: Sendable {
    struct Key: Hashable, Sendable {
        /// The stub's id, unique in its server: a stub removed and added again has another.
        let stub: UInt64
        let isHead: Bool
        let isHTTP10: Bool
        let keepsAlive: Bool
    }

    /// The most answers kept; past it, all are dropped and kept again as they are sent.
    static let capacity = 256
    /// The largest answer kept, head and body: a large body costs more to keep than its head costs to write, so
    /// that the cache holds 4 MiB at most, whatever the fixtures.
    static let largestAnswer = 16 << 10

    private let answers = Locked<[Key: (bytes: [UInt8], keepAlive: Bool)]>([:])

    /// How many answers are kept.
    var count: Int { answers.withLock { $0.count } }

    /// The answer kept for `key`.
    func answer(for key: Key) -> (bytes: [UInt8], keepAlive: Bool)? {
        answers.withLock { $0[key] }
    }

    /// Keeps `answer` for `key`, unless it is larger than `largestAnswer`.
    func keep(_ answer: (bytes: [UInt8], keepAlive: Bool), for key: Key) {
        guard answer.bytes.count <= Self.largestAnswer else { return }
        answers.withLock { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[key] = answer
        }
    }
}
