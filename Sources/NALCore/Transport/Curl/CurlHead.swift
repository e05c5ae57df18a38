#if os(Linux)
    package import Foundation
    import NALSupport

    /// A response head assembled from the lines libcurl hands to the header callback: the status line, the fields,
    /// and the empty line that ends them. Interim heads (`100 Continue`, `103 Early Hints`) are dropped.
    package struct CurlHead {
        package init() {}

        package private(set) var statusCode = 0
        package private(set) var version = "HTTP/1.1"
        /// The status line's reason phrase, printable characters only and at most `longestReasonPhrase` bytes.
        package private(set) var reasonPhrase = ""
        /// Fields in arrival order, a repeated name's values kept apart.
        package private(set) var fields: [(name: String, value: String)] = []
        /// The final head has ended: the body follows.
        package private(set) var isComplete = false
        /// The next line starts a head: the first line, or the one after an interim head. Anywhere else a line that
        /// starts with "HTTP/" is a field line, as libcurl reads it, not a new status.
        private var expectsStatusLine = true

        /// Takes one line as libcurl hands it over, line ending included.
        package mutating func take(_ rawLine: UnsafeRawBufferPointer) {
            // Once the final head is complete, what follows (trailers, or a line that looks like a status line) can
            // change nothing the caller was told.
            guard !isComplete else { return }
            var line = rawLine[...]
            while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
            if expectsStatusLine {
                guard line.starts(with: "HTTP/".utf8) else { return }
                return startHead(UnsafeRawBufferPointer(rebasing: line))
            }
            guard statusCode != 0 else { return }
            guard let first = line.first else {
                // The end of a head: an interim one is followed by another.
                isComplete = !(100..<200).contains(statusCode)
                if !isComplete {
                    statusCode = 0
                    expectsStatusLine = true
                }
                return
            }
            if first == 0x20 || first == 0x09, let last = fields.indices.last {
                // An obsolete folded line continues the last field's value.
                let more = Self.value(Self.trimmed(line), of: fields[last].name)
                fields[last].value += more.isEmpty ? "" : " " + more
                return
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
            let name = String(decoding: Self.trimmed(line[..<colon]), as: UTF8.self)
            // A field name is a token: "HTTP/1.1 302 " is not one, and no caller may mistake it for a header.
            guard !name.isEmpty, !name.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else { return }
            fields.append((name, Self.value(Self.trimmed(line[(colon + 1)...]), of: name)))
        }

        private mutating func startHead(_ line: UnsafeRawBufferPointer) {
            fields = []
            isComplete = false
            expectsStatusLine = false
            let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: true)
            version = parts.first.map { String(decoding: $0, as: UTF8.self) } ?? "HTTP/1.1"
            statusCode = 0
            reasonPhrase = parts.count == 3 ? Self.printable(parts[2]) : ""
            guard parts.count >= 2, parts[1].count == 3, parts[1].allSatisfy({ (0x30...0x39).contains($0) }) else {
                return
            }
            statusCode = parts[1].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }

        /// The head as a response of `url`, its fields as they came.
        package func responseHead(for url: URL) -> ResponseHead {
            ResponseHead(url: url, statusCode: statusCode, version: version, fields: fields, reasonPhrase: reasonPhrase)
        }

        /// The most bytes of a reason phrase kept: a server can send any number, and nobody reads more.
        package static let longestReasonPhrase = 256

        /// `bytes` as text for a terminal or a log: UTF-8 (ISO-8859-1 when it is not), control and format characters
        /// dropped (an escape sequence or a bidi override must not reach a terminal), trimmed, at most
        /// `longestReasonPhrase` bytes read.
        private static func printable(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
            var kept = trimmed(bytes.prefix(longestReasonPhrase))
            // The cut may split a character: drop its first bytes (at most 3) before reading it as UTF-8.
            if bytes.count > longestReasonPhrase, String(validating: kept, as: UTF8.self) == nil {
                for cut in 1...3 where String(validating: kept.dropLast(cut), as: UTF8.self) != nil {
                    kept = kept.dropLast(cut)
                    break
                }
            }
            let text =
                String(validating: kept, as: UTF8.self)
                ?? String(String.UnicodeScalarView(kept.map { Unicode.Scalar($0) }))
            let shown = text.unicodeScalars.filter {
                $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
            }
            return String(String.UnicodeScalarView(shown))
        }

        private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
            var slice = bytes
            while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
            while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
            return slice
        }

        /// A field's value as text, every byte kept: UTF-8 when it is, else ISO-8859-1 (the obs-text of RFC 9110
        /// §5.5, byte for scalar), never a replacement character. A `Location` that is not UTF-8 keeps its bytes
        /// percent-encoded instead, so that a redirect goes to the URL the server named, not to one with `é` in UTF-8.
        private static func value(_ raw: Slice<UnsafeRawBufferPointer>, of name: String) -> String {
            // RFC 9110 §5.5: a CR, LF or NUL inside a value is replaced with SP before anything reads it.
            func isForbidden(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x00 }
            guard raw.contains(where: isForbidden) else { return text(raw, of: name) }
            return text(raw.map { isForbidden($0) ? 0x20 : $0 }, of: name)
        }

        private static func text(_ bytes: some Collection<UInt8>, of name: String) -> String {
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            if HTTPToken.equalsIgnoringASCIICase(name, "Location") {
                var escaped: [UInt8] = []
                for byte in bytes {
                    if byte < 0x80 { escaped.append(byte) } else { PercentEncoding.appendEscaped(byte, to: &escaped) }
                }
                return String(decoding: escaped, as: UTF8.self)
            }
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }
    }
#endif
