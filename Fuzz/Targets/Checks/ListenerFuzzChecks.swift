package import Foundation
import NALStubbing

/// Properties of the stub listener's request parser over arbitrary bytes, for the `request-parser` fuzz target.
package enum ListenerFuzzChecks {
    /// What the parser made of some bytes: the whole requests, and the refusal that ended it, if any.
    private struct Outcome: Equatable {
        var requests: [ParsedRequest] = []
        var refusal: RequestRefusal?
    }

    /// Small bounds, so that short inputs reach them.
    private static var limits: HTTPRequestParser.Limits {
        var limits = HTTPRequestParser.Limits()
        limits.requestLine = 512
        limits.head = 2048
        limits.fields = 16
        limits.body = 4096
        return limits
    }

    /// The parser never traps; the bytes in one piece and in small pieces make the same requests and the same
    /// refusal (an incremental parser must not depend on how reads split); every request it accepts is one no
    /// stricter parser would read differently (a token method, a target and fields without control characters, a
    /// body within the bound); and a request written again with a `Content-Length` parses to itself.
    package static func requestParser(_ data: Data) throws(FuzzFailure) {
        let whole = outcome(of: [data], limits: limits)
        let size = Int(data.first ?? 0) % 7 + 1
        let pieces = stride(from: 0, to: data.count, by: size).map { data[$0..<min($0 + size, data.count)] }
        let split = outcome(of: pieces, limits: limits)
        try FuzzFailure.check(
            whole == split,
            "read whole: \(whole.requests.count) requests, \(String(describing: whole.refusal)); in pieces of \(size): "
                + "\(split.requests.count) requests, \(String(describing: split.refusal))")
        for request in whole.requests {
            try FuzzFailure.check(
                !request.method.isEmpty && request.method.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
                "a method with a space or control character was accepted")
            try FuzzFailure.check(
                request.target.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }, "a target with a space was accepted")
            for field in request.fields {
                try FuzzFailure.check(
                    field.value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) },
                    "the value of \(field.name) holds a control character")
            }
            try FuzzFailure.check(request.body.count <= limits.body, "a body past the bound was accepted")
            let lengths = request.values(of: "Content-Length")
            if let first = lengths.first?.split(separator: ",").first,
                let length = Int(first.trimmingCharacters(in: .whitespaces))
            {
                try FuzzFailure.check(request.body.count == length, "the body is not as long as Content-Length says")
            }
            var roomy = HTTPRequestParser.Limits()
            roomy.fields = 64
            let again = outcome(of: [written(request)], limits: roomy)
            try FuzzFailure.check(
                again.refusal == nil && again.requests.count == 1, "a request written again is refused: \(again)")
            if let reparsed = again.requests.first {
                try FuzzFailure.check(
                    reparsed.method == request.method && reparsed.target == request.target
                        && reparsed.body == request.body && reparsed.isHTTP10 == request.isHTTP10
                        && reparsed.fields.filter(keep) == request.fields.filter(keep),
                    "a request written again parses to another")
            }
        }
    }

    private static func outcome(of pieces: [Data], limits: HTTPRequestParser.Limits) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        for piece in pieces {
            parser.append(piece)
            do {
                while let event = try parser.next() {
                    if case .request(let request) = event { outcome.requests.append(request) }
                }
            } catch {
                outcome.refusal = error
                return outcome
            }
        }
        return outcome
    }

    /// The fields a request is written again with: its framing is written anew.
    private static func keep(_ field: ParsedRequest.HTTPField) -> Bool {
        !["content-length", "transfer-encoding", "expect"].contains(field.name.lowercased())
    }

    private static func written(_ request: ParsedRequest) -> Data {
        var text = "\(request.method) \(request.target) \(request.isHTTP10 ? "HTTP/1.0" : "HTTP/1.1")\r\n"
        for field in request.fields where keep(field) { text += "\(field.name): \(field.value)\r\n" }
        text += "Content-Length: \(request.body.count)\r\n\r\n"
        return Data(text.utf8) + request.body
    }
}
