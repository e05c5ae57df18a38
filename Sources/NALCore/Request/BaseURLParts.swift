import NALLogging

/// Where a base URL's text splits into `scheme://host/path`, query and fragment, checked for a scheme and a host.
///
/// A service's base URL is the same on every call, so the last one split is kept, with its text: the next request
/// compares the text (one comparison when it is the same string) instead of scanning it again.
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

    /// The last base URL split, and its parts. `Locked`, not `Mutex`, which ThreadSanitizer cannot see.
    private static let last = Locked<(text: String, parts: BaseURLParts)?>(nil)

    /// The parts of `absolute`, a base URL's `absoluteString`.
    static func of(_ absolute: String) -> Result<BaseURLParts, Problem> {
        // Another thread holding the lock means another request is being prepared: scanning is cheaper than waiting.
        let known = last.withLockIfAvailable { last in
            // Byte for byte: `==` takes canonically equivalent text as equal, whose bytes (and offsets) differ.
            last.flatMap { $0.text.utf8.elementsEqual(absolute.utf8) ? $0.parts : nil }
        }
        if let known = known ?? nil { return .success(known) }
        var absolute = absolute
        let result = absolute.withUTF8 { buffer -> Result<BaseURLParts, Problem> in
            let split = split(buffer)
            if let problem = problem(UnsafeBufferPointer(rebasing: buffer[..<split.mainEnd])) {
                return .failure(problem)
            }
            return .success(BaseURLParts(mainEnd: split.mainEnd, query: split.query, fragment: split.fragment))
        }
        if case .success(let parts) = result {
            _ = last.withLockIfAvailable { $0 = (absolute, parts) }
        }
        return result
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
        let hash = url.firstIndex(of: UInt8(ascii: "#"))
        let beforeFragment = hash ?? url.count
        let question = url[..<beforeFragment].firstIndex(of: UInt8(ascii: "?"))
        return (
            question ?? beforeFragment, question.map { ($0 + 1)..<beforeFragment },
            hash.map { ($0 + 1)..<url.count }
        )
    }
}
