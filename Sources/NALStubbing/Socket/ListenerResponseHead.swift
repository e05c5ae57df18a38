import NALSupport

/// The bytes of the heads a stub listener sends: a stub's answer, with the framing headers the listener decides
/// (`Content-Length`, `Transfer-Encoding`, `Connection`), and the answer to a request it refused.
enum ListenerResponseHead {
    /// How the body that follows a head ends.
    enum Framing: Equatable {
        /// `Content-Length: N`.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// The connection closes after it (HTTP/1.0 clients, a stream of unknown length).
        case untilClose
        /// No body may follow (a HEAD request, 1xx, 204, 304): `length` is stated when known.
        case none(length: Int?)
    }

    /// The header names the listener decides, whatever a stub or a fixture says: they frame the message.
    static let framingNames = ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade"]

    /// `HTTP/1.1 status reason`, the stub's headers that can be sent, and the framing.
    /// - Returns: the head, and the names of headers left out because their values cannot be sent.
    static func head(
        status: Int, headers: [(name: String, value: String)], framing: Framing, keepAlive: Bool,
        isHTTP10: Bool = false
    ) -> (bytes: [UInt8], leftOut: [String]) {
        // Written as bytes straight away: this runs for every answer.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        func put(_ text: String) { bytes.append(contentsOf: text.utf8) }
        put("HTTP/1.1 ")
        put(String(status))
        put(" ")
        put(reason(status))
        put("\r\n")
        var leftOut: [String] = []
        for (name, value) in headers {
            if framingNames.contains(where: { HTTPToken.equalsIgnoringASCIICase($0, name) }) { continue }
            // A value with CR or LF would write a second header or end the head early.
            guard HTTPToken.isValid(name), HTTPToken.problem(inValue: value) == nil else {
                leftOut.append(name)
                continue
            }
            put(name)
            put(": ")
            put(value)
            put("\r\n")
        }
        switch framing {
        case .length(let length), .none(length: .some(let length)):
            put("Content-Length: ")
            put(String(length))
            put("\r\n")
        case .chunked: put("Transfer-Encoding: chunked\r\n")
        case .untilClose, .none(length: nil): break
        }
        let closes = !keepAlive || framing == .untilClose
        // An HTTP/1.0 client keeps the connection only when told so.
        put(closes ? "Connection: close\r\n\r\n" : isHTTP10 ? "Connection: keep-alive\r\n\r\n" : "\r\n")
        return (bytes, leftOut)
    }

    /// The answer to a request the listener refused: its status, and why in a line of text; the connection closes.
    static func refusal(_ refusal: RequestRefusal) -> [UInt8] {
        let body = "NAL stub listener: \(refusal.reason)\n"
        return Array(
            ("HTTP/1.1 \(refusal.status) \(reason(refusal.status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
    }

    /// Whether a response with `status` to `method` carries no body (RFC 9110 §6.4.1).
    static func hasNoBody(status: Int, method: String) -> Bool {
        method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304
    }

    /// The reason phrase of `status`: clients ignore it, people read it.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
