import Foundation

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2), for a private cache.
package struct CacheFreshness: Sendable {
    /// Seconds since the origin made the response (§4.2.3).
    let age: Int
    /// Seconds for which it is fresh from its making (§4.2.1); 0 when it is stale at once.
    let lifetime: Int

    /// What the cache may use it for before it goes stale.
    var isFresh: Bool { lifetime > age }
    /// Seconds since it went stale (0 while fresh).
    var staleness: Int { max(0, age - lifetime) }

    /// A heuristic lifetime is this fraction of the time since `Last-Modified` (§4.2.2's typical 10 %).
    static let heuristicFraction = 0.1

    /// The statuses a cache may give a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    init(_ response: CachedResponse, now: Date, shared: Bool = false) {
        // §4.2.3: the corrected initial age, then the time it has been kept.
        let residentTime = max(0, now.timeIntervalSince(response.responseTime))
        age = Self.seconds(response.initialAge + residentTime)
        // §5.2.2.10: a shared cache reads s-maxage before max-age and Expires.
        lifetime = shared ? response.directives.seconds("s-maxage") ?? response.lifetime : response.lifetime
    }

    /// §4.2.3: the larger of the apparent age (from `Date`) and `Age` plus the time the response took to arrive.
    static func initialAge(date: Date, age: String?, requestTime: Date, responseTime: Date) -> Double {
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let ageValue = Double(age.map(Self.ageSeconds) ?? 0)
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, ageValue + responseDelay)
    }

    /// The seconds of an `Age` value: its first list member (a second `Age` line counts as a later member), before
    /// any parameter; 0 when that is not delta-seconds (a negative, a fraction, a word), as if it were absent.
    package static func ageSeconds(_ value: String) -> Int {
        let first = value.prefix { $0 != "," }.prefix { $0 != ";" }
        return CacheDirectives.deltaSeconds(first.trimmingCharacters(in: .whitespaces))
    }

    /// §4.2.1: `max-age`, else `Expires` minus `Date`, else a heuristic from `Last-Modified`.
    static func lifetime(
        status: Int, directives: CacheDirectives, date: Date, expires: [String], lastModified: String?
    ) -> Int {
        if let maxAge = directives.seconds("max-age") { return maxAge }
        if !expires.isEmpty {
            // An Expires that is not one HTTP-date (0, -1, garbage, two lines) means already expired (§5.3).
            guard expires.count == 1, let when = HTTPDate.parse(expires[0], now: date) else { return 0 }
            return seconds(when.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(status) || directives.has("public"),
            let modified = lastModified.flatMap({ HTTPDate.parse($0, now: date) })
        else { return 0 }
        return seconds(date.timeIntervalSince(modified) * heuristicFraction)
    }

    /// A number of seconds as a whole number in 0...2^31, whatever the input.
    static func seconds(_ interval: TimeInterval) -> Int {
        guard interval.isFinite, interval > 0 else { return 0 }
        return Int(min(interval, Double(CacheDirectives.largestSeconds)))
    }
}
