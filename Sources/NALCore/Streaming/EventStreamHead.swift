import Foundation

/// What makes a response an event stream: a `Content-Type` of `text/event-stream` (parameters allowed).
enum EventStreamHead {
    /// Why a response is not an event stream, for `DecodingFailure.underlying`.
    struct NotAnEventStream: Error, CustomStringConvertible {
        let contentType: String?

        var description: String {
            "the response's Content-Type is \(contentType.map { "'\($0)'" } ?? "missing"), not text/event-stream"
        }
    }

    static func isEventStream(_ response: Response) -> Bool {
        guard let type = response.headers["Content-Type"] else { return false }
        let mediaType = type.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return mediaType.caseInsensitiveCompare("text/event-stream") == .orderedSame
    }

    /// Throws `NALError.decoding`, with the start of the body, unless `stream` is an event stream.
    static func check(_ stream: ResponseStream) async throws(NALError) {
        guard !isEventStream(stream.response) else { return }
        let head = await ResponseStream.headWithBodyStart(of: stream.response.streaming(stream.body))
        throw .decoding(
            DecodingFailure(
                type: "ServerSentEvent", keyPath: nil,
                underlying: NotAnEventStream(contentType: stream.response.headers["Content-Type"]), response: head))
    }
}
