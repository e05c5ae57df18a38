package import Foundation

/// Writes `multipart/form-data` bodies: in memory when small, to a file when large, reading files in chunks.
package struct MultipartEncoder: Sendable {
    /// The boundary between parts.
    package let boundary: String
    private let parts: [MultipartFormBodyPart]

    /// An encoder for `parts`, with `boundary` or one derived from the parts.
    package init(parts: [MultipartFormBodyPart], boundary: String? = nil) {
        self.parts = parts
        self.boundary = boundary ?? Self.boundary(for: parts)
    }

    /// `multipart/form-data; boundary=…`.
    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// A boundary that is the same for the same parts within a process, so that identical uploads can share a call
    /// (de-duplication compares headers), and that no part's content will contain by chance: 128 bits of a seeded
    /// hash of the parts.
    static func boundary(for parts: [MultipartFormBodyPart]) -> String {
        func digest(salt: Int) -> String {
            var hasher = Hasher()
            hasher.combine(salt)
            for part in parts {
                hasher.combine(part.name)
                hasher.combine(part.fileName)
                hasher.combine(part.mimeType)
                switch part.provider {
                case .data(let data): hasher.combine(data)
                case .file(let url): hasher.combine(url.path)
                }
            }
            return String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 16).leftPadded(to: 16)
        }
        return "nal-" + digest(salt: 1) + digest(salt: 2)
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type, if it has one.
    package static func boundary(inContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value =
                pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Escapes a name or file name for a quoted header parameter as browsers do (WHATWG, per RFC 7578 4.2):
    /// `"` becomes `%22`, CR `%0D`, LF `%0A`.
    static func escaped(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The lines before a part's content, with the separator from the previous part.
    private func head(of part: MultipartFormBodyPart, isFirst: Bool) -> Data {
        var text = (isFirst ? "" : "\r\n") + "--\(boundary)\r\n"
        text += "Content-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let fileName = part.fileName { text += "; filename=\"\(Self.escaped(fileName))\"" }
        text += "\r\n"
        if let mimeType = part.mimeType {
            text += "Content-Type: \(Self.escaped(mimeType))\r\n"
        } else if part.fileName != nil {
            text += "Content-Type: \(MIMEType.fallback)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    private var tail: Data {
        Data(((parts.isEmpty ? "" : "\r\n") + "--\(boundary)--\r\n").utf8)
    }

    /// The body as pieces of known length: headers and data parts in memory, file parts as their files with the
    /// sizes they have now (checked to be regular files that can be read). The body sends exactly these lengths.
    package func segments() throws(NALError) -> [UploadBodyStream.Segment] {
        var segments: [UploadBodyStream.Segment] = []
        var pending = Data()
        for (index, part) in parts.enumerated() {
            pending += head(of: part, isFirst: index == 0)
            switch part.provider {
            case .data(let data):
                pending += data
            case .file(let url):
                let length = try FileAccess.readableFileSize(url)
                if !pending.isEmpty { segments.append(.data(pending)) }
                pending = Data()
                segments.append(.file(url, length: length))
            }
        }
        segments.append(.data(pending + tail))
        return segments
    }

    /// Whether every part is in memory, so that the body can be built without reading a file.
    package var isInMemory: Bool {
        parts.allSatisfy { if case .data = $0.provider { true } else { false } }
    }

    /// The body's size in bytes; checks that every file part can be read.
    package func contentLength() throws(NALError) -> Int64 {
        try UploadBodyStream.Segment.totalLength(of: segments())
    }

    /// Hands `segments` to `sink` piece by piece: bytes as they are, files in chunks, exactly their lengths.
    package static func encode(
        _ segments: [UploadBodyStream.Segment], into sink: (Data) throws(NALError) -> Void
    ) throws(NALError) {
        for segment in segments {
            switch segment {
            case .data(let data): try sink(data)
            case .file(let url, let length): try FileAccess.readChunks(of: url, length: length, sink)
            }
        }
    }

    /// The whole body in memory.
    package func encodedData() throws(NALError) -> Data {
        var body = Data()
        try Self.encode(segments()) { (piece: Data) throws(NALError) in body.append(piece) }
        return body
    }

    /// Writes `segments` to a new file at `url`, never holding more than a chunk of it.
    package static func write(_ segments: [UploadBodyStream.Segment], to url: URL) throws(NALError) {
        let writer = try FileWriter(url: url, role: .temporaryFile, mode: .createNew)
        do {
            try encode(segments) { (piece: Data) throws(NALError) in try writer.append(piece) }
            try writer.close()
        } catch {
            writer.abandon()
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
