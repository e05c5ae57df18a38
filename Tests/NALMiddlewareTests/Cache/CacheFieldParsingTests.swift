import Foundation
import Testing

@testable import NALMiddleware

/// The fields a cache reads its freshness and ranges from, as RFC 9110 and 9111 write them, and what servers send
/// instead.
@Suite("HTTPCache: HTTP-dates, Age and Range as a cache reads them")
struct CacheFieldParsingTests {
    /// 2050-08-18 02:01:18 GMT.
    static let august2050 = Date(timeIntervalSince1970: 2_544_400_878)

    @Test(
        "the three HTTP-date forms are read, names in any case",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 GMT", "THU, 18 AUG 2050 02:01:18 gMT", "Thursday, 18-Aug-50 02:01:18 GMT",
            "Thu Aug 18 02:01:18 2050",
        ])
    func validDates(_ text: String) {
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_800_000_000)) == Self.august2050)
    }

    @Test("asctime pads a one-digit day with a space; RFC 850's two-digit year is at most 50 years ahead")
    func paddedDayAndCentury() {
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Date(timeIntervalSince1970: 784_111_777))
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thursday, 18-Aug-77 02:01:18 GMT", now: now).map { $0 > now } == true)
        #expect(HTTPDate.parse("Thursday, 18-Aug-78 02:01:18 GMT", now: now).map { $0 < now } == true)
    }

    @Test(
        "an almost-date is refused: another zone, no comma, doubled spaces, dashes, a short year or hour, periods",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 24:01:18 GMT",
            "Thu, 32 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT, Thu, 18 Aug 2050 02:01:19 GMT", "0",
            "-1", "", "Xyz, 18 Aug 2050 02:01:18 GMT", "Thursday, 18-Aug-2050 02:01:18 GMT",
            "Mon, 31 Feb 2050 02:01:18 GMT", "Tue, 29 Feb 2050 02:01:18 GMT",
        ])
    func almostDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("two Expires fields make a response stale at once; one good one gives its lifetime")
    func twoExpiresFields() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func lifetime(_ expires: [String]) -> Int {
            CachedResponse(
                statusCode: 200, fields: expires.map { (name: "Expires", value: $0) }, body: Data(), varying: [],
                requestTime: now, responseTime: now
            ).lifetime
        }
        #expect(lifetime(["Thu, 18 Aug 2050 02:01:18 GMT"]) == 744_400_878)
        #expect(lifetime(["Thu, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT"]) == 0)
    }

    @Test(
        "Age is its first list member before any parameter; a value that is not delta-seconds counts as 0",
        arguments: [
            ("7200", 7200), ("7200, 0", 7200), ("0, 7200", 0), (" 30 ", 30), ("7200;foo=bar", 7200), ("abc", 0),
            ("-7200", 0), ("7200.0", 0), ("99999999999999999999", 2_147_483_648),
        ])
    func age(_ text: String, _ seconds: Int) {
        #expect(CacheFreshness.ageSeconds(text) == seconds)
    }

    @Test(
        "one byte range is resolved against the body; several, another unit, past the end or malformed are not",
        arguments: [
            ("bytes=0-1", 0...1), ("bytes=5-", 5...10), ("bytes=-3", 8...10), ("bytes=-30", 0...10),
            ("bytes=3-300", 3...10), ("BYTES=2-4", 2...4), (" bytes= 2 - 4 ", 2...4),
        ])
    func ranges(_ header: String, _ offsets: ClosedRange<Int>) {
        #expect(CacheRange.offsets(header, length: 11) == offsets)
    }

    @Test(
        "ranges left to the server",
        arguments: [
            "bytes=0-1,3-4", "items=0-1", "bytes=11-", "bytes=5-2", "bytes=-0", "bytes=a-b", "bytes=",
            "bytes=99999999999999999999-", "0-1", "bytes=1",
        ])
    func unservedRanges(_ header: String) {
        #expect(CacheRange.offsets(header, length: 11) == nil)
    }
}
