import Foundation
import NALCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A registered stub of a `StubServer`, returned so that it can be removed again.
public struct StubHandle: Hashable, Sendable {
    let id: UInt64
}

/// One registered stub: a matcher and what it answers.
final class StubEntry: Sendable {
    enum Source: Sendable {
        /// The same response, every time.
        case repeating(StubResponse)
        /// These responses in order; then the stub stops matching.
        case sequence([StubResponse])
        /// A response made per request.
        case handler(@Sendable (URLRequest) async throws -> StubResponse)
        /// These responses in order; then the last one again and again (recorded traffic).
        case replay([StubResponse])

        /// Why responses of this source cannot be delivered (an invalid status), for a message at registration.
        var statusProblems: [String] {
            switch self {
            case .repeating(let response): [response.statusProblem].compactMap { $0 }
            case .sequence(let responses), .replay(let responses): responses.compactMap(\.statusProblem)
            case .handler: []
            }
        }
    }

    let id: UInt64
    let matcher: RequestMatcher
    let source: Source
    /// Where the stub came from, for reports: a fixture file, a HAR entry.
    let origin: String?
    /// Wins over every stub of a lower priority, whatever their specificity.
    let priority: Int
    let specificity: Int
    /// Breaks ties of specificity (see `RequestMatcher.refinement`).
    let refinement: Int
    /// How many requests this stub has answered.
    let served = Atomic<Int>(0)

    init(id: UInt64, matcher: RequestMatcher, source: Source, origin: String? = nil, priority: Int = 0) {
        self.id = id
        self.matcher = matcher
        self.source = source
        self.origin = origin
        self.priority = priority
        specificity = matcher.specificity
        refinement = matcher.refinement
    }

    /// The order of precedence: priority, then specificity, then refinement, then the newest.
    var rank: (Int, Int, Int, UInt64) { (priority, specificity, refinement, id) }

    /// Whether this stub can answer another request.
    var isAvailable: Bool {
        if case .sequence(let responses) = source { return served.load(ordering: .relaxed) < responses.count }
        return true
    }

    var description: String {
        guard let origin else { return plainDescription }
        return "\(origin): \(plainDescription)"
    }

    private var plainDescription: String {
        switch source {
        case .repeating: "\(matcher)"
        case .sequence(let responses): "\(matcher) (a sequence of \(responses.count))"
        case .handler: "\(matcher) (a handler)"
        case .replay(let responses): "\(matcher) (\(responses.count) recorded)"
        }
    }
}

/// The stubs of one server: an index for stubs on an exact method, host and path, and an ordered list for the
/// rest, so that a lookup among thousands of exact stubs costs about what it costs among ten.
struct StubRegistry: Sendable {
    /// What a lookup found.
    enum Answer: Sendable {
        case response(StubResponse)
        case handler(@Sendable (URLRequest) async throws -> StubResponse)

        /// The response for `request`: the stubbed one, or what the handler makes of the request.
        func response(for request: URLRequest) async throws -> StubResponse {
            switch self {
            case .response(let stubbed): stubbed
            case .handler(let handler): try await handler(request)
            }
        }
    }

    private var indexed: [StubIndexKey: [StubEntry]] = [:]
    /// Stubs found by a piece of the URL they require (`.tail` files): a lookup tries only those whose piece is in
    /// the request's URL.
    private var byURLPiece: [String: [StubEntry]] = [:]
    private var patterns: [StubEntry] = []
    private(set) var all: [UInt64: StubEntry] = [:]
    /// The origins the stubs' matchers name, in order: found when a listener first asks after a change, so that
    /// registering stubs costs nothing more when no listener serves them.
    private var sortedOrigins: [String]?

    /// The origins the stubs' matchers name (`https://api.example.com`), in order.
    mutating func knownOrigins() -> [String] {
        if let sortedOrigins { return sortedOrigins }
        let sorted = Set(all.values.flatMap { $0.matcher.namedOrigins }).sorted()
        sortedOrigins = sorted
        return sorted
    }

    mutating func add(_ entry: StubEntry) {
        all[entry.id] = entry
        sortedOrigins = nil
        if let key = entry.matcher.indexKey {
            indexed[key, default: []].append(entry)
        } else if let piece = entry.matcher.requiredURLPiece {
            byURLPiece[piece, default: []].append(entry)
        } else {
            patterns.append(entry)
        }
    }

    mutating func remove(_ id: UInt64) {
        guard let entry = all.removeValue(forKey: id) else { return }
        sortedOrigins = nil
        if let key = entry.matcher.indexKey {
            indexed[key]?.removeAll { $0.id == id }
            if indexed[key]?.isEmpty == true { indexed[key] = nil }
        } else if let piece = entry.matcher.requiredURLPiece {
            byURLPiece[piece]?.removeAll { $0.id == id }
            if byURLPiece[piece]?.isEmpty == true { byURLPiece[piece] = nil }
        } else {
            patterns.removeAll { $0.id == id }
        }
    }

    mutating func removeAll() {
        self = StubRegistry()
    }

    /// The stub that would answer `request`, without claiming anything.
    func peek(_ request: RecordedRequest) -> StubEntry? {
        best(for: request)
    }

    /// The stub that answers `request` and what it answers; claims a sequence's next response. Precedence: the most
    /// specific stub that matches, then the most recently registered.
    func answer(_ request: RecordedRequest) -> (StubEntry, Answer)? {
        guard let best = best(for: request) else { return nil }
        let claimed = best.served.add(1, ordering: .relaxed).oldValue
        switch best.source {
        case .repeating(let response): return (best, .response(response))
        case .sequence(let responses), .replay(let responses):
            return (best, .response(responses[min(claimed, responses.count - 1)]))
        case .handler(let handler): return (best, .handler(handler))
        }
    }

    private func best(for request: RecordedRequest) -> StubEntry? {
        var best: StubEntry?
        func consider(_ entry: StubEntry) {
            if let current = best, entry.rank < current.rank { return }
            guard entry.isAvailable, entry.matcher.matches(request) else { return }
            best = entry
        }
        indexed[StubIndexKey(request)]?.forEach(consider)
        if !byURLPiece.isEmpty {
            let url = request.url.absoluteString.lowercased()
            var start = url.utf8.startIndex
            // The pieces between slashes, without `split`'s array: this runs for every request.
            while start < url.utf8.endIndex {
                let end = url.utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? url.utf8.endIndex
                if start < end { byURLPiece[String(url[start..<end])]?.forEach(consider) }
                start = end < url.utf8.endIndex ? url.utf8.index(after: end) : end
            }
        }
        patterns.forEach(consider)
        return best
    }

    /// Up to three stubs that come closest to matching `request`, each with why it did not: WireMock's near misses.
    func nearMisses(_ request: RecordedRequest, limit: Int = 3, excluding excluded: UInt64? = nil) -> [String] {
        let ranked = all.values.filter { $0.id != excluded }.map {
            entry -> (entry: StubEntry, score: Int, parts: [(matched: Bool, reason: String)]) in
            let parts = entry.matcher.explain(request)
            return (entry, parts.filter(\.matched).count, parts)
        }.sorted {
            ($0.score, $0.entry.rank.0, $0.entry.rank.1, $0.entry.id) > (
                $1.score, $1.entry.rank.0, $1.entry.rank.1, $1.entry.id
            )
        }
        return ranked.prefix(limit).map { candidate in
            var reasons = candidate.parts.map(\.reason)
            if !candidate.entry.isAvailable, case .sequence(let responses) = candidate.entry.source {
                reasons.append("all \(responses.count) responses of its sequence were served")
            } else if candidate.parts.allSatisfy(\.matched) {
                reasons.append("it matches too, but a more specific or newer stub answers")
            }
            return "\(candidate.entry.description): \(reasons.joined(separator: "; "))"
        }
    }
}
