package import Foundation

extension SensitiveData {
    /// A `multipart/*` body with its secrets redacted, every other byte kept: the content of a part whose `name` is
    /// sensitive becomes the marker, a text part is redacted by its own type (JSON, form fields, a nested multipart
    /// body), and a part that is not text is kept, or replaced by `binary(byteCount)` when given (logs show a
    /// placeholder; recordings keep the bytes). `nil` when no line of `body` is a delimiter of `boundary`.
    package func redacting(multipart body: Data, boundary: String, binary: ((Int) -> String)?) -> Data? {
        redacting(multipart: body, boundary: boundary, binary: binary, depth: 0)
    }

    /// The values of the sensitive parts of a multipart body, and of the sensitive fields of its JSON and form
    /// parts: what a recorder learns to remove where a server echoes them.
    package func secrets(inMultipart body: Data, boundary: String) -> [String] {
        guard let reader = MultipartReader(body, boundary: boundary) else { return [] }
        return reader.parts.compactMap { part in
            guard let name = part.name, isSensitiveBodyField(name), part.fileName == nil else { return nil }
            return String(data: part.content, encoding: .utf8)
        }
    }

    private func redacting(multipart body: Data, boundary: String, binary: ((Int) -> String)?, depth: Int) -> Data? {
        guard var reader = MultipartReader(body, boundary: boundary) else { return nil }
        for index in reader.parts.indices {
            let part = reader.parts[index]
            if let name = part.name, isSensitiveBodyField(name) {
                reader.parts[index].content = Data(Self.marker.utf8)
                continue
            }
            // A nested multipart body (multipart/mixed inside a form) is read to a small depth; deeper, it is
            // hidden whole rather than shown unread.
            if let type = part.contentType, type.lowercased().hasPrefix("multipart/") {
                let inner = MultipartEncoder.boundary(inContentType: type)
                let redacted =
                    depth < 4
                    ? inner.flatMap {
                        redacting(multipart: part.content, boundary: $0, binary: binary, depth: depth + 1)
                    } : nil
                reader.parts[index].content = redacted ?? Data(Self.marker.utf8)
                continue
            }
            switch redacting(body: part.content, contentType: part.contentType) {
            case .text(let text):
                reader.parts[index].content = Data(text.utf8)
            case .unparsableJSON(let count), .binary(let count):
                if let binary { reader.parts[index].content = Data(binary(count).utf8) }
            }
        }
        return reader.data
    }
}
