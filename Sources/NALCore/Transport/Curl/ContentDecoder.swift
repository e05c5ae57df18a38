#if os(Linux)
    import CCurl
    import Foundation
    import NALSupport

    /// Decodes one content coding (`gzip`, `deflate`) as its bytes arrive, on zlib, and knows whether the coded
    /// stream ended: libcurl 7.88 inflates without noticing a stream cut short when the framing is consistent, and
    /// stops at the first member of a gzip file made of several. One stage of `ContentDecoding`. Event-loop thread
    /// only.
    final class ContentDecoder {
        private let decoder: UnsafeMutableRawPointer
        private let coding: String
        /// The largest piece handed on at once.
        private static let pieceSize = 64 << 10
        private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 1)
        /// Coded bytes taken so far.
        private(set) var codedBytes: Int64 = 0
        /// Whether the last stream (member) ended, and nothing but another member may follow.
        private var ended = false
        /// Whether what follows the end is left out.
        private var ignoresRest = false
        /// Whether zlib holds decoded bytes back because the last piece filled the output: they come first next time.
        private(set) var hasPendingOutput = false

        /// A decoder for one coding NAL offers (`gzip`, `x-gzip`, `deflate`), or `nil` for any other.
        /// - Throws: when zlib cannot be loaded.
        static func make(coding: String) throws(NALError) -> ContentDecoder? {
            let gzip: Int32
            switch coding {
            case "gzip", "x-gzip": gzip = 1
            case "deflate": gzip = 0
            default: return nil
            }
            guard let decoder = nal_inflate_new(gzip) else {
                let reason = nal_inflate_load().map { String(cString: $0) } ?? "zlib is out of memory"
                throw .transport(
                    URLError(
                        .cannotDecodeContentData,
                        userInfo: [NSLocalizedDescriptionKey: "the \(coding) body cannot be decoded: \(reason)"]))
            }
            return ContentDecoder(decoder, coding: coding)
        }

        private init(_ decoder: UnsafeMutableRawPointer, coding: String) {
            self.decoder = decoder
            self.coding = coding
        }

        deinit {
            nal_inflate_free(decoder)
            output.deallocate()
        }

        /// What the receiver of a decoded piece wants next.
        enum Next {
            /// More pieces.
            case more
            /// No more for now (its consumer is behind): the bytes not yet decoded come again later.
            case pause
            /// The transfer ends.
            case stop
        }

        /// Decodes `bytes`, handing each decoded piece to `deliver`; returns how many of them were decoded (all of
        /// them unless `deliver` paused), or `nil` when `deliver` stopped. Throws when the bytes are not of the
        /// coding.
        func decode(
            _ bytes: UnsafeRawBufferPointer, url: URL, into deliver: (UnsafeRawBufferPointer) -> Next
        ) throws(NALError) -> Int? {
            // An empty buffer still flushes what zlib holds back from a piece that filled the output.
            // With nothing to read zlib reads nothing: any valid pointer stands for the empty input.
            guard
                var next = (bytes.baseAddress ?? UnsafeRawPointer(output.baseAddress))?.assumingMemoryBound(
                    to: UInt8.self)
            else { return 0 }
            var remaining = bytes.count
            defer { codedBytes += Int64(bytes.count - remaining) }
            while remaining > 0 || hasPendingOutput {
                if ended {
                    // What follows a complete stream: another gzip member (its first byte is 0x1F), or bytes that
                    // nothing decodes, which are left out as browsers and gzip(1) do.
                    guard !ignoresRest, coding != "deflate", next.pointee == 0x1F,
                        nal_inflate_next_member(decoder) != 0
                    else {
                        ignoresRest = true
                        remaining = 0
                        return bytes.count
                    }
                    ended = false
                }
                var consumed = 0
                var produced = 0
                let status = nal_inflate(
                    decoder, next, remaining, &consumed,
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &produced)
                next += consumed
                remaining -= consumed
                hasPendingOutput = status == Int32(nal_inflate_output_full)
                if produced > 0 {
                    switch deliver(UnsafeRawBufferPointer(rebasing: output[..<produced])) {
                    case .more: break
                    case .stop: return nil
                    case .pause:
                        // zlib keeps what it has not handed out yet; the rest of `bytes` comes again on resume.
                        return bytes.count - remaining
                    }
                }
                switch status {
                case Int32(nal_inflate_ended): ended = true
                case Int32(nal_inflate_output_full): continue
                case Int32(nal_inflate_more):
                    // zlib takes every byte it is given until the stream ends or the output fills: bytes left over
                    // with no progress cannot be decoded.
                    if consumed == 0, produced == 0, remaining > 0 {
                        throw failure("is not valid \(coding): zlib stopped taking its bytes", url: url)
                    }
                default:
                    throw failure(
                        "is not valid \(coding)"
                            + (nal_inflate_message(decoder).map { ": " + String(cString: $0) } ?? ""), url: url)
                }
            }
            return bytes.count
        }

        /// The failure of a body that ended before its coded stream did, or `nil` when it ended whole (or was
        /// empty, as a coded answer without a body is).
        func endFailure(url: URL) -> NALError? {
            guard codedBytes > 0, !ended else { return nil }
            return failure(
                "ended before its coded stream did, after \(codedBytes) bytes: it was cut short", url: url)
        }

        private func failure(_ problem: String, url: URL) -> NALError {
            .transport(
                URLError(
                    .cannotDecodeContentData,
                    userInfo: [
                        NSLocalizedDescriptionKey: "the \(coding) body \(problem)", NSURLErrorFailingURLErrorKey: url,
                    ]))
        }
    }
#endif
