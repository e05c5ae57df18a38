import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stub listener's HTTP/1.1, byte by byte from a raw socket: keep-alive, pipelining, chunked bodies,
/// `100-continue`, and what it refuses (each refusal answered with its status and a closed connection, after which
/// it serves on).
@Suite("StubServer on a socket: HTTP/1.1 framing, and hostile input refused")
struct StubListenerProtocolTests {
    /// A server whose stubs echo the path and the body they got.
    static func echoServer() -> StubServer {
        let server = StubServer()
        server.stub(.any) { request in
            let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .string("\(request.url?.path ?? ""):\(body)")
        }
        return server
    }

    @Test("pipelined requests with Content-Length and chunked bodies are answered in order on one connection")
    func pipelining() async throws {
        let server = Self.echoServer()
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n"
                + "X-Trailer: t\r\n\r\n")
        let (data, closed) = await socket.receive { String(decoding: $0, as: UTF8.self).contains("/c:abcde") }
        let text = String(decoding: data, as: UTF8.self)
        #expect(responseStatuses(data) == [200, 200, 200], "\(text)")
        let bodies = ["/a:", "/b:hello", "/c:abcde"].map { text.range(of: $0)?.lowerBound }
        #expect(bodies.allSatisfy { $0 != nil } && bodies == bodies.sorted { $0! < $1! }, "\(text)")
        #expect(!closed, "a keep-alive connection was closed")
        // Bare LF line ends, as some clients send them, are read too.
        await socket.send("GET /d HTTP/1.1\nHost: x\n\n")
        let bareLF = await socket.receive { String(decoding: $0, as: UTF8.self).contains("/d:") }
        #expect(String(decoding: bareLF.data, as: UTF8.self).contains("/d:"))
    }

    @Test("a HEAD answer has no body: a GET pipelined behind it reads its own answer whole")
    func headThenGet() async throws {
        let server = StubServer()
        server.stub(.path("/h"), response: .string("twelve bytes"))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /h HTTP/1.1\r\nHost: x\r\n\r\n")
        let (data, _) = await socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("twelve bytes") }
        let text = String(decoding: data, as: UTF8.self)
        #expect(responseStatuses(data) == [200, 200], "\(text)")
        // Exactly one body: the GET's, at the end; the HEAD's head states the length and nothing follows it.
        #expect(text.components(separatedBy: "twelve bytes").count == 2, "\(text)")
        #expect(text.components(separatedBy: "Content-Length: 12\r\n").count == 3, "\(text)")
    }

    @Test("a field sent twice is one header, its values joined in order under its first spelling (RFC 9110 §5.3)")
    func repeatedFields() async throws {
        let server = Self.echoServer()
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        // X-Latin's value is ISO-8859-1 (0xE9, é), as RFC 9110 §5.5 allows: kept as that text, not replaced.
        await socket.send(
            Data("GET /r HTTP/1.1\r\nHost: x\r\nX-Tag: a\r\nx-tag: b\r\nX-TAG: c\r\nX-Latin: caf".utf8) + Data([0xE9])
                + Data("\r\n\r\n".utf8))
        _ = await socket.receive { String(decoding: $0, as: UTF8.self).contains("/r:") }
        let recorded = try #require(server.requests.last)
        #expect(recorded.headers["X-Tag"] == "a, b, c", "\(recorded.headers)")
        #expect(recorded.headers["X-Latin"] == "caf\u{E9}", "\(recorded.headers)")
        #expect(recorded.headers.keys.filter { $0.lowercased() == "x-tag" }.count == 1)
    }

    @Test("a kept answer is not replayed stale: a redirect's Location follows the stubs registered since")
    func keptAnswersFollowTheStubs() async throws {
        let server = StubServer()
        server.stub(.path("/go"), response: .redirect(to: try #require(URL(string: "https://later.example/next"))))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        let request = "GET /go HTTP/1.1\r\nHost: x\r\n\r\n"
        await socket.send(request)
        let first = await socket.receive { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        #expect(String(decoding: first.data, as: UTF8.self).contains("Location: https://later.example/next\r\n"))
        // Once a stub names the origin, the redirect points at the listener instead.
        server.stub(.url(try #require(URL(string: "https://later.example/next"))), response: .string("next"))
        await socket.send(request)
        let second = await socket.receive { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        let text = String(decoding: second.data, as: UTF8.self)
        #expect(text.contains("Location: \(listener.baseURL.absoluteString)/next\r\n"), "\(text)")
    }

    @Test("a kept answer is kept per request shape: HTTP/1.0 keep-alive, HTTP/1.1, then Connection: close")
    func keptAnswersPerShape() async throws {
        let server = StubServer()
        server.stub(.path("/k"), response: .string("kept"))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = await socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("kept") }
        #expect(String(decoding: first.data, as: UTF8.self).contains("Connection: keep-alive\r\n"))
        await socket.send("GET /k HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = await socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("kept") }
        let text = String(decoding: second.data, as: UTF8.self)
        #expect(responseStatuses(second.data) == [200] && !text.contains("Connection:"), "\(text)")
        // And one that closes gets an answer that says so, and the connection ends.
        await socket.send("GET /k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let third = await socket.receive(quiet: .seconds(3))
        #expect(String(decoding: third.data, as: UTF8.self).contains("Connection: close\r\n"))
        #expect(third.closed, "the connection stayed open after Connection: close")
    }

    @Test("a large body is played as the client reads, not queued whole; HEAD of an admin endpoint states its length")
    func largeBodiesAndAdminHead() async throws {
        let server = StubServer()
        let delivered = Locked(false)
        // Past what loopback's socket buffers take (about 10 MiB at most here) and the listener's 1 MiB.
        let size = 24 << 20
        server.stub(
            .path("/large"),
            response: StubResponse(body: Data(count: size)).whenDelivered { _ in delivered.withLock { $0 = true } })
        var options = ListenerOptions()
        options.adminEndpoints = true
        let listener = try server.listen(host: "127.0.0.1", port: 0, as: nil, options: options)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n")
        // Unread, 24 MiB cannot all have left: the answer waits for room instead of being copied out whole.
        try await Task.sleep(for: .milliseconds(500))
        #expect(!delivered.withLock { $0 }, "24 MiB were queued for a client that read nothing")
        // Room for ThreadSanitizer's pace, about a megabyte a second.
        let (data, _) = await socket.receive(until: { $0.count >= size }, timeout: .seconds(120))
        #expect(data.count >= size)
        try await Task.sleep(for: .milliseconds(100))
        #expect(delivered.withLock { $0 })
        let head = try RawSocket(port: listener.port)
        await head.send("HEAD /__nal/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = await head.receive { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        let text = String(decoding: answer.data, as: UTF8.self)
        #expect(text.contains("Content-Length: 3\r\n") && text.hasSuffix("\r\n\r\n"), "\(text)")
    }

    @Test("twenty pipelined requests for 200 KiB answers, read only once all are sent: every answer arrives whole")
    func pipelinedLargeAnswers() async throws {
        let server = StubServer()
        let body = Data(repeating: UInt8(ascii: "x"), count: 200 << 10)
        server.stub(.path("/mid"), response: StubResponse(body: body))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        // More than the listener queues before it waits for the client to read: it must resume when the client does.
        await socket.send(String(repeating: "GET /mid HTTP/1.1\r\nHost: x\r\n\r\n", count: 20))
        try await Task.sleep(for: .milliseconds(300))
        let (data, _) = await socket.receive { responseStatuses($0).count == 20 && $0.count >= 20 * (200 << 10) }
        #expect(responseStatuses(data) == Array(repeating: 200, count: 20))
        #expect(data.count >= 20 * (200 << 10), "\(data.count) bytes of 20 answers")
    }

    @Test("Expect: 100-continue gets the interim answer before the body; Connection: close and HTTP/1.0 close")
    func continueAndClose() async throws {
        let server = Self.echoServer()
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send("PUT /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let interim = await socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\n") }
        #expect(String(decoding: interim.data, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        await socket.send("body")
        let final = await socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("/up:body") }
        #expect(responseStatuses(final.data) == [200])
        #expect(String(decoding: final.data, as: UTF8.self).hasSuffix("/up:body"))

        for request in [
            "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET /old HTTP/1.0\r\n\r\n",
        ] {
            let closing = try RawSocket(port: listener.port)
            await closing.send(request)
            let (data, closed) = await closing.receive(quiet: .seconds(5))
            #expect(responseStatuses(data) == [200], "\(request)")
            #expect(closed, "\(request): the connection stayed open")
        }
        // A client that half-closes after its request still gets the answer.
        let halfClosed = try RawSocket(port: listener.port)
        await halfClosed.send("GET /half HTTP/1.1\r\nHost: x\r\n\r\n")
        halfClosed.finishSending()
        let answered = await halfClosed.receive(quiet: .seconds(5))
        #expect(responseStatuses(answered.data) == [200] && answered.closed)
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let status: Int
        /// Words the one-line reason must hold, where another check would refuse the request too.
        var reason = ""
        var testDescription: String { name }
    }

    @Test(
        "hostile requests get their 4xx or 5xx and a closed connection, and the listener serves on",
        arguments: [
            Hostile(
                name: "a request line over 8 KiB",
                bytes: "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\n\r\n",
                status: 414),
            Hostile(
                name: "a head over 64 KiB",
                bytes: "GET / HTTP/1.1\r\nHost: x\r\n"
                    + (0..<70).map { "X-\($0): \(String(repeating: "v", count: 1000))\r\n" }.joined() + "\r\n",
                status: 431),
            Hostile(
                name: "101 fields",
                bytes: "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n",
                status: 431),
            Hostile(
                name: "Content-Length not a number", bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4x\r\n\r\n",
                status: 400),
            Hostile(
                name: "Content-Length negative", bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                status: 400),
            Hostile(
                name: "two Content-Lengths that differ",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", status: 400),
            Hostile(
                name: "a Content-Length list that differs",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", status: 400),
            Hostile(
                name: "a Content-Length of 30 digits",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(String(repeating: "9", count: 30))\r\n\r\n",
                status: 413),
            Hostile(
                name: "Content-Length with Transfer-Encoding",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                status: 400),
            Hostile(
                name: "Transfer-Encoding not ending in chunked",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400),
            Hostile(
                name: "a transfer coding not decoded",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501),
            Hostile(
                name: "chunked twice",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
                status: 400),
            Hostile(
                name: "two Host fields in different letter cases",
                bytes: "GET / HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n", status: 400),
            Hostile(
                name: "content-length in lower case beside Transfer-Encoding",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                status: 400),
            Hostile(
                name: "Transfer-Encoding in HTTP/1.0",
                bytes: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
            Hostile(
                name: "a chunk-size not hex",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
            Hostile(
                name: "a chunk-size past any length",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffff\r\n",
                status: 413),
            Hostile(
                name: "chunk data longer than its size",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n",
                status: 400),
            Hostile(
                name: "NUL in a field value", bytes: "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
            Hostile(
                name: "a Content-Length with a no-break space",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\u{A0}\r\n\r\nhello", status: 400),
            Hostile(
                name: "chunked spelt with a Kelvin sign",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chun\u{212A}ed\r\n\r\n0\r\n\r\n", status: 400),
            Hostile(
                name: "an absolute target whose path would become a host",
                bytes: "GET a:@evil.example/x HTTP/1.1\r\nHost: x\r\n\r\n", status: 400, reason: "not a URL"),
            Hostile(
                name: "NUL in a chunk extension",
                bytes: "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;a\u{0}b\r\nx\r\n0\r\n\r\n",
                status: 400, reason: "chunk extension"),
            Hostile(
                name: "a bare CR in a field", bytes: "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", status: 400,
                reason: "bare CR"),
            Hostile(
                name: "a folded field line", bytes: "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", status: 400,
                reason: "folded"),
            Hostile(
                name: "a space before the colon", bytes: "GET / HTTP/1.1\r\nHost: x\r\nX-A : a\r\n\r\n", status: 400),
            Hostile(name: "no Host in HTTP/1.1", bytes: "GET / HTTP/1.1\r\n\r\n", status: 400),
            Hostile(
                name: "a thousand empty lines before the request line",
                bytes: String(repeating: "\r\n", count: 1000) + "GET / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400,
                reason: "empty lines"),
            Hostile(name: "two Hosts", bytes: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
            Hostile(name: "HTTP/2.0 in a request line", bytes: "GET / HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
            Hostile(name: "not a request line", bytes: "HELLO\r\n\r\n", status: 400),
            Hostile(name: "a method that is not a token", bytes: "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
            Hostile(
                name: "an expectation it cannot meet", bytes: "GET / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n",
                status: 417),
        ])
    func hostile(_ hostile: Hostile) async throws {
        let server = Self.echoServer()
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let socket = try RawSocket(port: listener.port)
        await socket.send(hostile.bytes)
        let (data, closed) = await socket.receive(quiet: .seconds(5))
        #expect(responseStatuses(data) == [hostile.status], "\(String(decoding: data, as: UTF8.self))")
        #expect(
            hostile.reason.isEmpty || String(decoding: data, as: UTF8.self).contains(hostile.reason),
            "the reason should name \(hostile.reason)")
        #expect(closed, "the connection stayed open")
        #expect(server.requests.isEmpty, "a refused request reached the stubs")
        let next = try RawSocket(port: listener.port)
        await next.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(responseStatuses(await next.receive { $0.count > 0 && responseStatuses($0) == [200] }.data) == [200])
    }

    @Test("a client that sends its head a byte at a time is answered 408 and closed; an idle connection is closed")
    func slowClients() async throws {
        var options = ListenerOptions()
        options.timeouts.head = .milliseconds(400)
        options.timeouts.idle = .milliseconds(400)
        let server = Self.echoServer()
        let listener = try server.listen(host: "127.0.0.1", port: 0, as: nil, options: options)
        defer { Task { await listener.stop() } }
        let slow = try RawSocket(port: listener.port)
        var received = Data()
        var closedWhileSending = false
        // A byte every 50 ms for up to 6 s: the deadline runs from the first byte, so the answer comes while the
        // client is still sending.
        for byte in ("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "a", count: 80)).utf8 {
            guard await slow.send(Data([byte])) else {
                closedWhileSending = true
                break
            }
            let (data, closed) = await slow.receive(quiet: .milliseconds(50))
            received += data
            if closed {
                closedWhileSending = true
                break
            }
        }
        #expect(closedWhileSending, "a client sending a byte at a time held the connection")
        #expect(responseStatuses(received) == [408], "\(String(decoding: received, as: UTF8.self))")
        let idle = try RawSocket(port: listener.port)
        let (nothing, closed) = await idle.receive(quiet: .seconds(3))
        #expect(nothing.isEmpty && closed)
        // A connection that served a request idles out too: its deadline moved past the one the loop waited for.
        // A loaded machine may sleep past the first idle deadline: then the connection is gone and it tries again.
        var answered = false
        for _ in 0..<5 where !answered {
            let served = try RawSocket(port: listener.port)
            try await Task.sleep(for: .milliseconds(150))
            await served.send("GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
            let (answer, closedAfterIdle) = await served.receive(quiet: .seconds(5))
            guard responseStatuses(answer) == [200] else { continue }
            answered = true
            #expect(closedAfterIdle, "a connection that served a request stayed open past its idle timeout")
        }
        #expect(answered, "no connection lived long enough to be answered")
    }

    @Test("200 slow clients holding connections open do not hold back another client's call")
    func slowClientsHoldNoOneBack() async throws {
        let server = Self.echoServer()
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        var holders: [RawSocket] = []
        for index in 0..<200 {
            let socket = try RawSocket(port: listener.port)
            await socket.send("GET /held-\(index) HTTP/1.1\r\nHost: x\r\nX-Part")
            holders.append(socket)
        }
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let response = try await client.request(TestEndpoint(baseURL: listener.baseURL, path: "free"))
        #expect(response.string() == "/free:")
        #expect(holders.count == 200)
    }
}
