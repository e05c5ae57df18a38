package import Foundation

/// An HTTP-date as RFC 9110 §5.6.7 writes it, and nothing looser: `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate),
/// `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850) or `Sun Nov  6 08:49:37 1994` (asctime). Names are read in any case.
/// A cache must treat an `Expires` it cannot read as already past (RFC 9111 §5.3), so an almost-date (another time
/// zone, a missing comma, doubled spaces, a one-digit hour) is refused rather than guessed at.
package enum HTTPDate {
    /// The date `text` names; `now` places an RFC 850 two-digit year in its century.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 40 else { return nil }
        return imfFixdate(bytes) ?? rfc850(bytes, now: now) ?? asctime(bytes)
    }

    private static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, dayNames.contains(lowercased(bytes[0..<3])), bytes[3] == UInt8(ascii: ","),
            bytes[4] == space, let day = number(bytes[5..<7]), bytes[7] == space,
            let month = monthNames.firstIndex(of: lowercased(bytes[8..<11])), bytes[11] == space,
            let year = number(bytes[12..<16]), bytes[16] == space, let time = time(bytes[17..<25]),
            bytes[25] == space, lowercased(bytes[26..<29]) == "gmt"
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a two-digit year more than 50 years ahead is the century before (§5.6.7).
    private static func rfc850(_ bytes: [UInt8], now: Date) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")),
            longDayNames.contains(lowercased(bytes[..<comma])), bytes.count == comma + 24
        else { return nil }
        let rest = Array(bytes[(comma + 1)...])
        guard rest[0] == space, let day = number(rest[1..<3]), rest[3] == dash,
            let month = monthNames.firstIndex(of: lowercased(rest[4..<7])), rest[7] == dash,
            let shortYear = number(rest[8..<10]), rest[10] == space, let time = time(rest[11..<19]),
            rest[19] == space, lowercased(rest[20..<23]) == "gmt"
        else { return nil }
        let thisYear =
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT") ?? .current, from: now)
            .year ?? 2000
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctime(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, dayNames.contains(lowercased(bytes[0..<3])), bytes[3] == space,
            let month = monthNames.firstIndex(of: lowercased(bytes[4..<7])), bytes[7] == space,
            let day = bytes[8] == space ? number(bytes[9..<10]) : number(bytes[8..<10]), bytes[10] == space,
            let time = time(bytes[11..<19]), bytes[19] == space, let year = number(bytes[20..<24])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    private static let space = UInt8(ascii: " ")
    private static let dash = UInt8(ascii: "-")

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The digits of `bytes` as a number; `nil` when any is not a digit.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return bytes.isEmpty ? nil : value
    }

    /// `08:49:37` as hour, minute and second.
    private static func time(_ bytes: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
            let hour = number(bytes[start..<(start + 2)]), let minute = number(bytes[(start + 3)..<(start + 5)]),
            let second = number(bytes[(start + 6)..<(start + 8)]), hour < 24, minute < 60, second <= 60
        else { return nil }
        return (hour, minute, second)
    }

    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...9999).contains(year), (1...lengths[month - 1]).contains(day) else { return nil }
        let days = RetryAfter.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time.0 * 3600 + time.1 * 60 + time.2))
    }
}
