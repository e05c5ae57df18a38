package import Foundation
import NALCore
import NALSupport

/// Reads HTTP/1.1 requests (RFC 9112) off one connection's bytes as they arrive, for the stub listener.
///
/// It takes what real clients send (keep-alive and pipelined requests, `Content-Length` and chunked bodies, bare LF
/// line ends, empty lines before a request line) and refuses, with a status, whatever could make two parsers
/// disagree about where a request ends: conflicting or malformed `Content-Length`, `Content-Length` beside
/// `Transfer-Encoding`, bad chunk sizes, folded lines, NUL, bare CR and other control characters in the head. Heads,
/// field counts and bodies are bounded (`Limits`). Every byte is looked at once: a client that sends its head a byte
/// at a time costs what a fast one does. After a refusal it reads nothing more; the connection is closed.
package struct HTTPRequestParser: Sendable {
    /// The bounds of what one request may send.
    package struct Limits: Sendable, Equatable {
        /// The most bytes of a request line: 8 KiB, as most servers take (414 past it).
        package var requestLine = 8 << 10
        /// The most bytes of a head, the request line and the fields (431 past it), and of a chunked body's
        /// trailer section.
        package var head = 64 << 10
        /// The most header fields (431 past it).
        package var fields = 100
        /// The most bytes of a body (413 past it): a stub server keeps bodies in memory, to match and journal them.
        package var body = 64 << 20

        package init() {}
    }

    /// What the bytes so far make.
    package enum Event: Sendable, Equatable {
        /// A head that asked for `100 Continue` is complete and its body has not begun: the client waits for the
        /// interim answer before it sends the body.
        case continueExpected
        /// A whole request.
        case request(ParsedRequest)
    }

    private enum State: Sendable {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case failed
    }

    package let limits: Limits
    private var buffer: [UInt8] = []
    /// The first byte not consumed yet.
    private var start = 0
    /// Bytes from `start` up to here hold no line end: a line that arrives a byte at a time is scanned once.
    private var scanned = 0
    private var state = State.head
    /// The request being read: its request line once parsed, its fields, then its body.
    private var current: ParsedRequest?
    /// Bytes of the current head (or trailer section) so far.
    private var headBytes = 0
    private var trailerFields = 0
    /// Empty lines before the current request line.
    private var emptyLines = 0
    private static let mostEmptyLines = 16

    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Adds bytes read off the connection.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes read off the connection.
    package mutating func append(_ bytes: Data) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Whether a request has begun and not ended: bytes of it are here, or its head or body is incomplete. A
    /// connection is idle between requests only.
    package var isMidRequest: Bool {
        if case .head = state { return current != nil || start < buffer.count }
        if case .failed = state { return false }
        return true
    }

    /// The next event the bytes so far make, or `nil` until more come.
    /// - Throws: what is wrong with the request; the parser then reads nothing more.
    package mutating func next() throws(RequestRefusal) -> Event? {
        do {
            return try advance()
        } catch {
            state = .failed
            current = nil
            throw error
        }
    }

    private mutating func advance() throws(RequestRefusal) -> Event? {
        while true {
            switch state {
            case .failed:
                return nil
            case .head:
                let limit = current == nil ? limits.requestLine : limits.head
                guard let line = try nextLine(limit: limit, tooLong: .head) else { return nil }
                headBytes += line.count + 2
                guard headBytes <= limits.head + 2 else { throw refusal(.head) }
                if current == nil {
                    // RFC 9112 §2.2: empty lines before a request line are ignored, a few of them.
                    if line.isEmpty {
                        emptyLines += 1
                        guard emptyLines <= Self.mostEmptyLines else {
                            throw .badRequest("over \(Self.mostEmptyLines) empty lines come before the request line")
                        }
                        continue
                    }
                    emptyLines = 0
                    current = try Self.requestLine(line)
                    current?.fields.reserveCapacity(8)
                } else if line.isEmpty {
                    if let event = try headEnded() { return event }
                } else {
                    guard current?.fields.count ?? 0 < limits.fields else {
                        throw RequestRefusal(431, "the head has more than \(limits.fields) fields")
                    }
                    current?.fields.append(try Self.field(line))
                }
            case .body(let remaining):
                let taken = takeBody(upTo: remaining)
                guard taken == remaining else {
                    state = .body(remaining: remaining - taken)
                    return nil
                }
                return completed()
            case .chunkSize:
                guard let line = try nextLine(limit: 4096, tooLong: .chunkSize)
                else { return nil }
                let size = try chunkSize(line)
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = takeBody(upTo: remaining)
                guard taken == remaining else {
                    state = .chunkData(remaining: remaining - taken)
                    return nil
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try nextLine(limit: 0, tooLong: .chunkEnd) else { return nil }
                guard line.isEmpty else { throw refusal(.chunkEnd) }
                state = .chunkSize
            case .trailers:
                guard let line = try nextLine(limit: limits.head, tooLong: .trailers) else { return nil }
                headBytes += line.count + 2
                guard headBytes <= limits.head + 2 else { throw refusal(.trailers) }
                if line.isEmpty { return completed() }
                // Trailer fields are checked as fields are, then left out: no stub matches on them.
                _ = try Self.field(line)
                trailerFields += 1
                guard trailerFields <= limits.fields else {
                    throw RequestRefusal(431, "the trailer section has more than \(limits.fields) fields")
                }
            }
        }
    }

    /// Which line ran past its limit: its refusal is made only then, not for every line read.
    private enum LongLine {
        case head, chunkSize, chunkEnd, trailers
    }

    private func refusal(_ line: LongLine) -> RequestRefusal {
        switch line {
        case .head:
            current == nil
                ? RequestRefusal(414, "the request line is over \(limits.requestLine) bytes")
                : RequestRefusal(431, "the head is over \(limits.head) bytes")
        case .chunkSize: .badRequest("a chunk-size line is over 4 KiB")
        case .chunkEnd: .badRequest("a chunk's data does not end where its chunk-size says")
        case .trailers: RequestRefusal(431, "the trailer section is over \(limits.head) bytes")
        }
    }

    /// Decides how the body of the head just ended is framed; the event to report now, if any.
    private mutating func headEnded() throws(RequestRefusal) -> Event? {
        guard let request = current else { return nil }
        headBytes = 0
        // The fields that frame the request, found in one pass over the head.
        var hosts = 0
        var transferCodings: [String] = []
        var lengths: [String] = []
        for field in request.fields {
            if HTTPToken.equalsIgnoringASCIICase(field.name, "Host") {
                hosts += 1
            } else if HTTPToken.equalsIgnoringASCIICase(field.name, "Transfer-Encoding") {
                transferCodings.append(field.value)
            } else if HTTPToken.equalsIgnoringASCIICase(field.name, "Content-Length") {
                lengths.append(field.value)
            }
        }
        try Self.checkHost(count: hosts, isHTTP10: request.isHTTP10)
        let expectsBody: Bool
        if !transferCodings.isEmpty {
            // RFC 9112 §6.1 and §6.3: both framings at once is how requests are smuggled; HTTP/1.0 has no chunking.
            guard lengths.isEmpty else {
                throw .badRequest("the request has both Content-Length and Transfer-Encoding")
            }
            guard !request.isHTTP10 else { throw .badRequest("an HTTP/1.0 request has a Transfer-Encoding") }
            try Self.checkChunked(transferCodings)
            state = .chunkSize
            expectsBody = true
        } else if !lengths.isEmpty {
            let length = try Self.contentLength(lengths, limit: limits.body)
            state = .body(remaining: length)
            expectsBody = length > 0
        } else {
            state = .body(remaining: 0)
            expectsBody = false
        }
        if let expectation = request.value(of: "Expect") {
            guard ParsedRequest.listItem(Substring(expectation)) == "100-continue" else {
                throw RequestRefusal(417, "the expectation \(DisplayText.capped(expectation)) cannot be met")
            }
            // A client that sent body bytes anyway is not waiting for the interim answer.
            if expectsBody, start == buffer.count, !request.isHTTP10 { return .continueExpected }
        }
        return nil
    }

    private mutating func completed() -> Event? {
        guard let request = current.take() else { return nil }
        headBytes = 0
        trailerFields = 0
        state = .head
        return .request(request)
    }

    /// Moves up to `count` buffered bytes into the current body; how many it moved.
    private mutating func takeBody(upTo count: Int) -> Int {
        let taken = min(count, buffer.count - start)
        guard taken > 0 else { return 0 }
        current?.body.append(contentsOf: buffer[start..<(start + taken)])
        start += taken
        scanned = max(scanned, start)
        return taken
    }

    /// The next line without its line end (CRLF or a bare LF), or `nil` until its end has come.
    /// - Throws: `tooLong` past `limit` bytes, or a bare CR.
    private mutating func nextLine(limit: Int, tooLong: LongLine) throws(RequestRefusal) -> ArraySlice<UInt8>? {
        scanned = max(scanned, start)
        guard let end = buffer[scanned...].firstIndex(of: 0x0A) else {
            scanned = buffer.count
            // A CR may wait for its LF; the line is too long already when the bytes without the CR are.
            let pending = buffer.count - start - (buffer.last == 0x0D ? 1 : 0)
            if pending > limit { throw refusal(tooLong) }
            return nil
        }
        var line = buffer[start..<end]
        if line.last == 0x0D { line = line.dropLast() }
        guard line.count <= limit else { throw refusal(tooLong) }
        if line.contains(0x0D) { throw .badRequest("a line of the request holds a bare CR") }
        start = end + 1
        scanned = start
        return line
    }

    /// Drops consumed bytes once they are most of the buffer.
    private mutating func compact() {
        guard start > 0, start >= buffer.count / 2 || start > 64 << 10 else { return }
        buffer.removeSubrange(0..<start)
        scanned -= start
        start = 0
    }

    // MARK: The pieces of a head

    /// `method SP request-target SP HTTP-version` (RFC 9112 §3), with single spaces.
    private static func requestLine(_ line: ArraySlice<UInt8>) throws(RequestRefusal) -> ParsedRequest {
        // Split at its first two spaces by hand (`split` made an array for every request); a third space makes a
        // version that is no HTTP version.
        guard let firstSpace = line.firstIndex(of: 0x20),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 0x20)
        else { throw .badRequest("the request line is not `METHOD target HTTP/1.1`") }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard !method.isEmpty, !target.isEmpty else {
            throw .badRequest("the request line is not `METHOD target HTTP/1.1`")
        }
        guard method.allSatisfy(HTTPToken.isTokenCharacter) else {
            throw .badRequest("the method is not a token")
        }
        guard target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw .badRequest("the request target holds a control character or a space")
        }
        let isHTTP10: Bool
        if version.elementsEqual("HTTP/1.1".utf8) {
            isHTTP10 = false
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            isHTTP10 = true
        } else if version.count == 8, version.starts(with: "HTTP/".utf8),
            version.dropFirst(5).enumerated().allSatisfy({ $0.offset == 1 ? $0.element == 0x2E : isDigit($0.element) })
        {
            throw RequestRefusal(505, "HTTP/\(String(decoding: version.dropFirst(5), as: UTF8.self)) is not served")
        } else {
            throw .badRequest("the request line does not end in HTTP/1.1")
        }
        return ParsedRequest(
            method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
            isHTTP10: isHTTP10, fields: [], body: Data())
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    private static func field(_ line: ArraySlice<UInt8>) throws(RequestRefusal) -> ParsedRequest.HTTPField {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .badRequest("a field line is folded onto the one before it (obs-fold)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .badRequest("a field line has no colon")
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(HTTPToken.isTokenCharacter) else {
            throw .badRequest("a field name is not a token (or has spaces before its colon)")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        for byte in value where byte < 0x20 && byte != 0x09 || byte == 0x7F {
            let shown = byte == 0 ? "NUL" : HTTPToken.hexByte(byte)
            throw .badRequest("the value of \(String(decoding: name, as: UTF8.self)) holds \(shown)")
        }
        return ParsedRequest.HTTPField(name: String(decoding: name, as: UTF8.self), value: text(value))
    }

    /// A field value as text: UTF-8, or ISO-8859-1 where it is not (RFC 9110 §5.5), so that no byte is lost.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        // ASCII, as nearly every value is, needs no validating.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// An HTTP/1.1 request names its host once (RFC 9112 §3.2).
    private static func checkHost(count hosts: Int, isHTTP10: Bool) throws(RequestRefusal) {
        guard hosts <= 1 else { throw .badRequest("the request has \(hosts) Host fields") }
        guard !isHTTP10, hosts == 0 else { return }
        throw .badRequest("an HTTP/1.1 request has no Host field")
    }

    /// `Transfer-Encoding` must end in `chunked`, once; another coding is one the listener does not decode.
    private static func checkChunked(_ values: [String]) throws(RequestRefusal) {
        let codings = values.flatMap { $0.split(separator: ",") }.map(ParsedRequest.listItem).filter { !$0.isEmpty }
        guard codings.last == "chunked" else {
            throw .badRequest("Transfer-Encoding does not end in chunked, so the body's end is unknown")
        }
        guard codings.count == 1 else {
            if codings.filter({ $0 == "chunked" }).count > 1 {
                throw .badRequest("Transfer-Encoding names chunked more than once")
            }
            throw RequestRefusal(501, "the transfer coding \(DisplayText.capped(codings[0])) is not decoded here")
        }
    }

    /// The one length all `Content-Length` values state (RFC 9110 §8.6: a list of one repeated number is that
    /// number); anything else is refused.
    private static func contentLength(_ values: [String], limit: Int) throws(RequestRefusal) -> Int {
        var length: Int?
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = ParsedRequest.listItem(item)
                guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                    throw .badRequest("Content-Length \(DisplayText.capped(value)) is not a number")
                }
                // Saturates: a number past the limit is refused as too large, never parsed into an overflow.
                let trimmed = digits.drop { $0 == "0" }
                let number = trimmed.count > 18 ? Int.max : Int(trimmed) ?? 0
                guard length == nil || length == number else {
                    throw .badRequest("the request states two different Content-Lengths")
                }
                length = number
            }
        }
        let result = length ?? 0
        guard result <= limit else {
            throw RequestRefusal(413, "the body is over \(BoundedFile.describe(bytes: limit))")
        }
        return result
    }

    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1), with the body so far bounded by the limit.
    private func chunkSize(_ line: ArraySlice<UInt8>) throws(RequestRefusal) -> Int {
        let digits = line.prefix { Self.hexValue($0) != nil }
        guard !digits.isEmpty else { throw .badRequest("a chunk-size is not a hexadecimal number") }
        let rest = line.dropFirst(digits.count).drop { $0 == 0x20 || $0 == 0x09 }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else {
            throw .badRequest("a chunk-size is followed by something other than an extension")
        }
        // An extension is read past, and held to what a field value may hold.
        if let control = rest.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            let shown = control == 0 ? "NUL" : HTTPToken.hexByte(control)
            throw .badRequest("a chunk extension holds \(shown)")
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        var size = 0
        let room = limits.body - (current?.body.count ?? 0)
        for digit in significant {
            // Saturates past the room left: never an overflow, whatever the number of digits.
            let value = Int(Self.hexValue(digit) ?? 0)
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard size <= room, !overflow, shifted <= Int.max - value else {
                size = Int.max
                break
            }
            size = shifted + value
        }
        guard size <= room else {
            throw RequestRefusal(413, "the body is over \(BoundedFile.describe(bytes: limits.body))")
        }
        return size
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
