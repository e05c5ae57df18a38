public import Foundation

/// A `StubServer`'s stubs served over a real socket, for any HTTP client in any process: an app under UI test,
/// `CurlTransport`, curl. Made by `StubServer.listen(host:port:as:)`.
///
/// It serves HTTP/1.1 with keep-alive and pipelining, `Content-Length` and chunked request bodies and
/// `Expect: 100-continue`, many connections at once on an event loop (a slow client holds back no other). Requests it
/// cannot read safely get a 4xx or 5xx and a closed connection; the listener goes on serving the others. It stops when
/// `stop()` is called, or when it is no longer referenced.
///
/// It is a test tool: it listens on the loopback address unless told otherwise, and has no authentication. Bind it
/// elsewhere only on a network you trust.
public final class StubListener: Sendable {
    /// Where it listens: `http://127.0.0.1:PORT`. A listener on every address (`0.0.0.0`) gives the loopback
    /// address here; other machines reach it at this machine's own.
    public let baseURL: URL
    /// The origin requests are matched as if they had been sent to, when `listen` was given one.
    public let origin: URL?
    let core: ListenerCore

    init(baseURL: URL, origin: URL?, core: ListenerCore) {
        self.baseURL = baseURL
        self.origin = origin
        self.core = core
    }

    deinit {
        core.stopSoon()
    }

    /// The port it listens on.
    public var port: Int { core.socket.port }

    /// Stops listening and closes every connection; returns once they are closed. Answers in progress end with
    /// their connections.
    public func stop() async {
        await core.stop()
    }
}
