/// Where a base URL's text splits into `scheme://host/path`, query and fragment, checked for a scheme and a host.
///
/// One scan of the bytes, about 50 ns: keeping the last split and comparing the next base URL with it cost as much,
/// behind a lock every request shared.
struct BaseURLParts: Sendable {
    /// Why a base URL cannot be used.
    enum Problem: Error {
        case missingScheme, missingHost
    }

    /// The end of `scheme://host/path`.
    let mainEnd: Int
    /// The query's bytes, without `?`.
    let query: Range<Int>?
    /// The fragment's bytes, without `#`.
    let fragment: Range<Int>?

    /// The parts of `absolute`, the bytes of a base URL's `absoluteString`.
    static func of(_ absolute: UnsafeBufferPointer<UInt8>) -> Result<BaseURLParts, Problem> {
        let split = split(absolute)
        if let problem = problem(UnsafeBufferPointer(rebasing: absolute[..<split.mainEnd])) { return .failure(problem) }
        let parts = BaseURLParts(mainEnd: split.mainEnd, query: split.query, fragment: split.fragment)
        return .success(parts)
    }

    /// Why `main` (`scheme://authority/path`) lacks a scheme or a host, or `nil`.
    /// RFC 3986 §3: `scheme ":" "//" authority` with a non-empty host.
    private static func problem(_ main: UnsafeBufferPointer<UInt8>) -> Problem? {
        let missingScheme = Problem.missingScheme
        let missingHost = Problem.missingHost
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
        guard let first = main.first, isLetter(first) else { return missingScheme }
        var index = 1
        while index < main.count, main[index] != UInt8(ascii: ":") {
            let byte = main[index]
            guard
                isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return missingScheme }
            index += 1
        }
        guard index < main.count else { return missingScheme }
        index += 1
        guard index + 1 < main.count, main[index] == UInt8(ascii: "/"), main[index + 1] == UInt8(ascii: "/") else {
            return missingHost
        }
        index += 2
        var end = index
        var hostStart = index
        while end < main.count, main[end] != UInt8(ascii: "/") {
            if main[end] == UInt8(ascii: "@") { hostStart = end + 1 }
            end += 1
        }
        guard hostStart < end else { return missingHost }
        if main[hostStart] == UInt8(ascii: "[") {
            return hostStart + 1 < end && main[hostStart + 1] != UInt8(ascii: "]") ? nil : missingHost
        }
        return main[hostStart] == UInt8(ascii: ":") ? missingHost : nil
    }

    /// Where `scheme://host/path?query#fragment` splits at the first `#` and the first `?` before it.
    static func split(
        _ url: UnsafeBufferPointer<UInt8>
    ) -> (
        mainEnd: Int, query: Range<Int>?, fragment: Range<Int>?
    ) {
        // One scan for both: `?` counts only before the first `#`.
        var question: Int?
        var index = 0
        while index < url.count {
            let byte = url[index]
            if byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "?"), question == nil { question = index }
            index += 1
        }
        let beforeFragment = index
        let hash = index < url.count ? index : nil
        return (
            question ?? beforeFragment, question.map { ($0 + 1)..<beforeFragment },
            hash.map { ($0 + 1)..<url.count }
        )
    }
}
