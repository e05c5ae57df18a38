package import NALCore

#if canImport(FoundationNetworking)
    package import Foundation
    import FoundationNetworking
#else
    package import Foundation
#endif

/// Reads `Retry-After` (RFC 9110 §10.2.3): a number of seconds (digits only), or an HTTP date. Whatever a server
/// sends, the result is a finite wait or `nil`: numbers saturate, and years outside 1..9999 are refused, so no value
/// can trap.
package enum RetryAfter {
    /// The longest wait read, in seconds (about 31 years); larger values saturate to it.
    package static let maximumSeconds: Int64 = 1_000_000_000

    /// The wait a response asks for, or `nil` when it has no readable `Retry-After`. A date in the past is 0.
    package static func delay(in response: Response, now: Date = Date()) -> Duration? {
        guard let value = response.headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty
        else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only: `0x2`, `0.5`, `+3` and `1e3` are not delay-seconds.
            let digits = value.drop { $0 == "0" }
            let seconds = digits.count > 10 ? maximumSeconds : min(Int64(digits) ?? 0, maximumSeconds)
            return .seconds(seconds)
        }
        guard let date = httpDate(value) else { return nil }
        let seconds = max(0, min(date.timeIntervalSince(now), Double(maximumSeconds)))
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The three date formats of RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, preferred),
    /// `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850) and `Sun Nov  6 08:49:37 1994` (asctime). `nil` for anything else,
    /// including years outside 1..9999 and numbers too long to be a date's.
    package static func httpDate(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let parts = text.replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: [Int]?
        for part in parts {
            if let index = months.firstIndex(of: String(part.prefix(3)).lowercased()), part.count <= 9,
                part.allSatisfy(\.isLetter)
            {
                month = index + 1
            } else if part.contains(":") {
                let clock = part.split(separator: ":").compactMap { smallNumber($0) }
                if clock.count == 3 { time = clock }
            } else if part.contains("-") {
                // RFC 850: 06-Nov-94
                let pieces = part.split(separator: "-")
                if pieces.count == 3, let dayNumber = smallNumber(pieces[0]), let yearNumber = smallNumber(pieces[2]),
                    let index = months.firstIndex(of: pieces[1].lowercased())
                {
                    day = dayNumber
                    month = index + 1
                    year = yearNumber < 100 ? (yearNumber < 70 ? 2000 + yearNumber : 1900 + yearNumber) : yearNumber
                }
            } else if let number = smallNumber(part) {
                if number > 31 { year = number } else { day = number }
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year),
            (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// A number of at most 5 digits, as a date's parts have; longer or signed text is not one.
    private static func smallNumber(_ text: some StringProtocol) -> Int? {
        guard (1...5).contains(text.utf8.count),
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
