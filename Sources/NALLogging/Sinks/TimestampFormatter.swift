#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `2026-11-21T19:55:57.123Z`, built without `DateFormatter` (which allocates and locks).
enum TimestampFormatter {
    static func iso8601(_ timestamp: Double) -> String {
        var seconds = time_t(timestamp.rounded(.down))
        let milliseconds = Int((timestamp - timestamp.rounded(.down)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(min(999, max(0, milliseconds))), 3) + "Z"
    }
}
