import NALCore
import NALLogging
import NALSupport

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// Plays a stub's answer onto a listener's connection: the delay, then the head with the listener's framing, then
/// the body at the stub's pace, held back while the client reads slowly. A network error closes the connection
/// before any answer; a truncated stub closes it part way through the body it announced.
struct ListenerPlayback: Sendable {
    let response: StubResponse
    /// The request answered: its method and version decide the framing, and whether the connection stays open.
    let request: ParsedRequest
    let context: ListenerContext
    /// The origins the stubs name: a redirect to one of them is pointed at the listener.
    let knownOrigins: [String]

    private static var log: Logger { Logger(nal: .stubbing) }

    func play(on connection: StubConnection) async {
        let playback = StubPlayback(response: response)
        do {
            try await playback.waitForStart()
        } catch {
            connection.drop()
            return
        }
        if let problem = response.statusProblem ?? Self.interimProblem(response.status) {
            Self.log.error("a stub \(problem, privacy: .public): the listener answers 500")
            Self.send(
                status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Data("NAL stub listener: the stub \(problem)\n".utf8), to: request, connection)
            return
        }
        let (head, framing, keepAlive) = self.head(length: playback.bodyLength)
        let noBody = ListenerResponseHead.hasNoBody(status: response.status, method: request.method)
        connection.send(head)
        guard !noBody else {
            connection.finishResponse(keepAlive: keepAlive)
            return
        }
        let chunked = framing == .chunked
        do throws(StubPlayback.Failure) {
            try await playback.playBody(pacing: { _ = await connection.waitForRoom() }) { chunk throws(NALError) in
                guard !connection.isClosed else { throw .cancelled }
                connection.send(chunked ? Self.chunk(chunk) : [UInt8](chunk))
            }
        } catch {
            // Cut short on purpose, a file that cannot be read, or a client gone: the connection ends here, so
            // that the client sees a body shorter than announced.
            connection.drop()
            return
        }
        if chunked { connection.send(Array("0\r\n\r\n".utf8)) }
        connection.finishResponse(keepAlive: keepAlive)
    }

    /// The head of the answer, its framing, and whether the connection stays open after it.
    private func head(length: Int?) -> (bytes: [UInt8], framing: ListenerResponseHead.Framing, keepAlive: Bool) {
        let noBody = ListenerResponseHead.hasNoBody(status: response.status, method: request.method)
        // A HEAD answer states the length a GET would get, except where no length may be stated (204, 304).
        let statesLength = request.isHead && !ListenerResponseHead.hasNoBody(status: response.status, method: "GET")
        let framing: ListenerResponseHead.Framing =
            noBody
            ? .none(length: statesLength ? length : nil)
            : length.map { .length($0) } ?? (request.isHTTP10 ? .untilClose : .chunked)
        let keepAlive = request.keepsAlive && framing != .untilClose
        var headers = response.headers.map { (name: $0.key, value: $0.value) }
        // Sorted, so that the same stub always sends the same head; a single header needs no sorting.
        if headers.count > 1 { headers.sort { $0.name < $1.name } }
        for index in headers.indices where HTTPToken.equalsIgnoringASCIICase(headers[index].name, "Location") {
            headers[index].value = context.rewritten(location: headers[index].value, knownOrigins: knownOrigins)
        }
        let (head, leftOut) = ListenerResponseHead.head(
            status: response.status, headers: headers, framing: framing, keepAlive: keepAlive,
            isHTTP10: request.isHTTP10)
        if !leftOut.isEmpty {
            Self.log.error(
                "the listener left out headers whose values cannot be sent: \(leftOut.joined(separator: ", "), privacy: .public)"
            )
        }
        return (head, framing, keepAlive)
    }

    /// The whole answer at once, when it needs no waiting: a body in memory, without delay, pacing, pauses between
    /// pieces or truncation, and a status that can be sent; `nil` otherwise. A body over `StubConnection.lowWater`
    /// is played by a task instead, held back while the client reads slowly: a copy of it per connection that does
    /// not read would hold gigabytes.
    func atOnce() -> (bytes: [UInt8], keepAlive: Bool)? {
        guard response.isReadyAtOnce, response.truncationPoint == nil, (response.chunkInterval ?? .zero) == .zero,
            response.statusProblem == nil, Self.interimProblem(response.status) == nil,
            case .data(let body) = response.body, body.count <= StubConnection.lowWater
        else { return nil }
        var (bytes, _, keepAlive) = head(length: body.count)
        if !ListenerResponseHead.hasNoBody(status: response.status, method: request.method) {
            bytes.append(contentsOf: body)
        }
        return (bytes, keepAlive)
    }

    /// Why a 1xx status cannot be a stub's answer on a socket: it would be read as an interim answer, and the
    /// client would wait for the final one for ever.
    private static func interimProblem(_ status: Int) -> String? {
        (100..<200).contains(status) ? "has the interim status \(status), which is no final answer" : nil
    }

    /// One chunk of a chunked body.
    private static func chunk(_ data: Data) -> [UInt8] {
        var bytes = Array((String(data.count, radix: 16) + "\r\n").utf8)
        bytes.reserveCapacity(bytes.count + data.count + 2)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: [0x0D, 0x0A])
        return bytes
    }

    /// A whole answer of the listener's own (a near-miss report, an admin endpoint's), framed by length, and
    /// whether the connection stays open after it.
    static func whole(
        status: Int, headers: [(name: String, value: String)], body: Data, to request: ParsedRequest
    ) -> (bytes: [UInt8], keepAlive: Bool) {
        let noBody = ListenerResponseHead.hasNoBody(status: status, method: request.method)
        // A HEAD answer states the length a GET would get, as a stub's does.
        let statesLength = request.isHead && !ListenerResponseHead.hasNoBody(status: status, method: "GET")
        var (bytes, _) = ListenerResponseHead.head(
            status: status, headers: headers,
            framing: noBody ? .none(length: statesLength ? body.count : nil) : .length(body.count),
            keepAlive: request.keepsAlive, isHTTP10: request.isHTTP10)
        if !noBody { bytes.append(contentsOf: body) }
        return (bytes, request.keepsAlive)
    }

    /// Sends a whole answer of the listener's own from a task.
    static func send(
        status: Int, headers: [(name: String, value: String)], body: Data, to request: ParsedRequest,
        _ connection: StubConnection
    ) {
        let whole = whole(status: status, headers: headers, body: body, to: request)
        connection.send(whole.bytes)
        connection.finishResponse(keepAlive: whole.keepAlive)
    }

    /// Refuses a request the listener read but cannot serve, and closes.
    static func refuse(_ refusal: RequestRefusal, _ connection: StubConnection) {
        connection.send(ListenerResponseHead.refusal(refusal))
        connection.drop()
    }
}
