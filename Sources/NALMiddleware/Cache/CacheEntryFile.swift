package import Foundation
import NALSupport

/// One stored response as the bytes of its file in a cache folder.
///
/// The file is `NALCACHE1\n`, then each item as its decimal length, `\n` and its bytes: the key's digest, the status,
/// the request and response times, the fields, the `Vary` names and values, and the body; then the SHA-256 of all that
/// in 64 hex digits. A file that is torn (cut short by a crash or a full disk) or altered fails its digest and is
/// never read as a response.
package enum CacheEntryFile {
    static let magic = Array("NALCACHE1\n".utf8)

    /// The bytes of `response`, stored under `keyDigest`.
    static func encode(_ response: CachedResponse, keyDigest: String) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(response.cost + 128)
        func item(_ text: some Collection<UInt8>) {
            bytes += Array(String(text.count).utf8)
            bytes.append(UInt8(ascii: "\n"))
            bytes += text
        }
        func item(_ text: String) { item(Array(text.utf8)) }
        item(keyDigest)
        item(String(response.statusCode))
        item(String(response.requestTime.timeIntervalSince1970.bitPattern))
        item(String(response.responseTime.timeIntervalSince1970.bitPattern))
        item(String(response.fields.count))
        for field in response.fields {
            item(field.name)
            item(field.value)
        }
        item(String(response.varying.count))
        for varying in response.varying {
            item(varying.name)
            // An absent value and an empty one differ: "-" or "+value".
            item(varying.value.map { "+" + $0 } ?? "-")
        }
        item(response.body)
        var hasher = SHA256()
        hasher.update(bytes)
        bytes += Array(hasher.finalizeHex().utf8)
        return bytes
    }

    /// Whether `bytes` are an intact entry stored under `keyDigest`, and the same entry again once encoded: for the
    /// fuzz target.
    package static func decodesAndRoundTrips(_ bytes: [UInt8], keyDigest: String) -> Bool? {
        guard let response = decode(bytes, keyDigest: keyDigest) else { return nil }
        return encode(response, keyDigest: keyDigest) == bytes
    }

    /// The bytes of an entry made of `fields` and `body`, for the fuzz target's round trips.
    package static func encode(
        fields: [(name: String, value: String)], varying: [(name: String, value: String?)], body: Data,
        keyDigest: String
    ) -> [UInt8] {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        return encode(
            CachedResponse(
                statusCode: 200, fields: fields, body: body, varying: varying, requestTime: time, responseTime: time),
            keyDigest: keyDigest)
    }

    /// The response in `bytes`, or `nil` when they are not an intact entry stored under `keyDigest`.
    static func decode(_ bytes: [UInt8], keyDigest: String) -> CachedResponse? {
        let digestLength = 64
        guard bytes.count > magic.count + digestLength, bytes.starts(with: magic) else { return nil }
        let contentEnd = bytes.count - digestLength
        var hasher = SHA256()
        hasher.update(bytes[..<contentEnd])
        guard Array(hasher.finalizeHex().utf8) == Array(bytes[contentEnd...]) else { return nil }
        var reader = Reader(bytes: bytes, position: magic.count, end: contentEnd)
        guard reader.text() == keyDigest, let status = reader.number(), (100...999).contains(status),
            let requestTime = reader.time(), let responseTime = reader.time(), let fieldCount = reader.number()
        else { return nil }
        var fields: [(name: String, value: String)] = []
        for _ in 0..<fieldCount {
            guard let name = reader.text(), let value = reader.text() else { return nil }
            fields.append((name, value))
        }
        guard let varyingCount = reader.number() else { return nil }
        var varying: [(name: String, value: String?)] = []
        for _ in 0..<varyingCount {
            // The mark is one byte: read as a Character, "+" and a value that starts with a combining mark are one.
            guard let name = reader.text(), let marked = reader.item(), let mark = marked.first else { return nil }
            varying.append(
                (name, mark == UInt8(ascii: "+") ? String(decoding: marked.dropFirst(), as: UTF8.self) : nil))
        }
        guard let body = reader.item(), reader.position == contentEnd else { return nil }
        return CachedResponse(
            statusCode: status, fields: fields, body: Data(body), varying: varying, requestTime: requestTime,
            responseTime: responseTime)
    }

    /// Reads length-prefixed items, refusing any length that runs past the content.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        mutating func item() -> ArraySlice<UInt8>? {
            var length = 0
            while position < end, bytes[position] != UInt8(ascii: "\n") {
                let digit = Int(bytes[position]) - Int(UInt8(ascii: "0"))
                // At most 12 digits: no length can overflow, and none is longer than a file.
                guard (0...9).contains(digit), length < 100_000_000_000 else { return nil }
                length = length * 10 + digit
                position += 1
            }
            guard position < end, length <= end - position - 1 else { return nil }
            let start = position + 1
            position = start + length
            return bytes[start..<position]
        }

        mutating func text() -> String? { item().map { String(decoding: $0, as: UTF8.self) } }

        mutating func number() -> Int? { text().flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil } }

        mutating func time() -> Date? {
            guard let bits = text().flatMap({ UInt64($0) }) else { return nil }
            let seconds = Double(bitPattern: bits)
            return seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
        }
    }
}
