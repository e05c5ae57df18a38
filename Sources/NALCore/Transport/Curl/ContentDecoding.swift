#if os(Linux)
    import Foundation

    /// The content codings of one response, decoded in the order opposite to the one they were applied in
    /// (`Content-Encoding: deflate, gzip` is gzip over deflate): one `ContentDecoder` per coding. Event-loop thread
    /// only.
    ///
    /// Only the outermost stage pauses in the middle of its input (see `CurlTransfer.receiveBody`); an inner stage
    /// decodes each piece it is given whole, so with stacked codings a stream may take one outer piece's expansion
    /// past its bound before it pauses.
    final class ContentDecoding {
        /// The codings NAL decodes, offered in `Accept-Encoding`.
        static let offered = "gzip, deflate"
        /// The most codings one response may stack: more is no real server's.
        static let mostStages = 4

        private let stages: [ContentDecoder]

        private init(_ stages: [ContentDecoder]) {
            self.stages = stages
        }

        /// The decoding of `contentEncoding` (a field's value, or several joined with ", "), or `nil` when the body
        /// is not coded (`identity` stands for nothing), or coded in a way NAL passes on as it came: a coding NAL
        /// did not offer, or more than `mostStages`.
        /// - Throws: when zlib cannot be loaded.
        static func make(contentEncoding: String?) throws(NALError) -> ContentDecoding? {
            guard let value = contentEncoding?.lowercased() else { return nil }
            let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && $0 != "identity" }
            guard !codings.isEmpty, codings.count <= mostStages else { return nil }
            var stages: [ContentDecoder] = []
            for coding in codings.reversed() {
                guard let stage = try ContentDecoder.make(coding: coding) else { return nil }
                stages.append(stage)
            }
            return ContentDecoding(stages)
        }

        /// Whether the outermost stage holds decoded bytes back: they come first next time.
        var hasPendingOutput: Bool { stages[0].hasPendingOutput }

        /// Decodes `bytes` through every stage, handing each decoded piece to `deliver`; returns how many of them
        /// were decoded (all unless `deliver` paused), or `nil` when it stopped. Throws when a stage's bytes are not
        /// of its coding.
        func decode(
            _ bytes: UnsafeRawBufferPointer, url: URL, into deliver: (UnsafeRawBufferPointer) -> ContentDecoder.Next
        ) throws(NALError) -> Int? {
            guard stages.count > 1 else { return try stages[0].decode(bytes, url: url, into: deliver) }
            var pauseAsked = false
            var failure: NALError?
            let decoded = try stages[0].decode(bytes, url: url) { piece in
                do throws(NALError) {
                    guard try feed(piece, from: 1, url: url, pauseAsked: &pauseAsked, deliver) else { return .stop }
                } catch {
                    failure = error
                    return .stop
                }
                return pauseAsked ? .pause : .more
            }
            if let failure { throw failure }
            return decoded
        }

        /// Hands `piece` to stage `index`, whole, and what it decodes on; `false` when `deliver` stopped.
        private func feed(
            _ piece: UnsafeRawBufferPointer, from index: Int, url: URL, pauseAsked: inout Bool,
            _ deliver: (UnsafeRawBufferPointer) -> ContentDecoder.Next
        ) throws(NALError) -> Bool {
            guard index < stages.count else {
                switch deliver(piece) {
                case .more: return true
                case .pause:
                    pauseAsked = true
                    return true
                case .stop: return false
                }
            }
            var asked = pauseAsked
            var failure: NALError?
            let decoded = try stages[index].decode(piece, url: url) { inner in
                do throws(NALError) {
                    return try feed(inner, from: index + 1, url: url, pauseAsked: &asked, deliver) ? .more : .stop
                } catch {
                    failure = error
                    return .stop
                }
            }
            pauseAsked = asked
            if let failure { throw failure }
            return decoded != nil
        }

        /// The failure of a body that ended before one of its coded streams did, or `nil`.
        func endFailure(url: URL) -> NALError? {
            stages.lazy.compactMap { $0.endFailure(url: url) }.first
        }
    }
#endif
