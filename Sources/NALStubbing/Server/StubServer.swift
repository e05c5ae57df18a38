import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Answers the requests of any `URLSession` made from `sessionConfiguration` with stubs: NAL's `URLSessionTransport`,
/// and any other client built on URLSession.
///
/// ```swift
/// let server = StubServer()
/// server.stub(.method(.get) && .path("/users/{id}"), response: .json(["login": "octocat"]))
/// let client = Client<GitHub>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
/// ```
///
/// - **Isolation.** Each server serves only the sessions made from its own configurations, through URLProtocol
///   classes of its own, so servers used at once by parallel tests never see each other's stubs, even for the same
///   URL. Keep the server alive while its sessions run: once it is released, their requests fail instead of
///   reaching the network.
/// - **Precedence.** A stub registered with a higher `priority` wins; among equal priorities (0 by default) the most
///   specific wins (an exact URL over method, host and path, over a path template, over a prefix; each further
///   condition adds to it), then the most recently registered. To override an earlier stub as OHHTTPStubs users do
///   by adding a later one, give the later one a higher priority.
/// - **Sequences.** `stub(_:responses:)` answers with each response once, in order, and then stops matching.
/// - **Redirects** are followed inside the stub layer for plain URLSession clients (a URLProtocol cannot report them
///   on Linux), with the method, body and credential rules of `RedirectPolicy` (303 turns every method but HEAD into
///   GET); the response's URL is the last one. NAL's transport gets the 3xx itself and follows it by its own policy.
/// - **Unmatched requests** fail with `URLError(.resourceUnavailable)` whose description lists the closest stubs and
///   why each did not match, or, with `.passThrough`, go to the network. `ignore(_:)` sends chosen requests to the
///   network whatever the policy (Mocker's ignore list).
/// - **Timeouts.** A plain client's request fails with `URLError(.timedOut)` when no response has started within its
///   idle timeout: the request's `timeoutInterval` when set, else the configuration's `timeoutIntervalForRequest`,
///   and the whole exchange within `timeoutIntervalForResource`. NAL's transport enforces its own timeouts.
/// - **Cookies.** When the configuration asks for it (`httpShouldSetCookies`, a cookie store and an accepting
///   policy), stubbed `Set-Cookie` headers are stored and later requests carry them, as on the network.
/// - **Journal.** `requests` keeps the last `journalCapacity` requests (1,000 by default), bodies up to
///   `journaledBodyLimit` bytes (64 KiB) whole and larger ones as their SHA-256; `clearJournal()` empties it.
/// - **Linux.** A client that takes the body in one piece (a completion handler or `data(for:)`, which keep only the
///   last chunk a custom protocol loads) gets it in one piece; NAL's transport gets it in chunks, so that throttled
///   bodies show progress and files are never read whole. A stub's custom error reaches a plain client as it is,
///   and NAL's transport as the underlying error of `NALError.transport`.
public final class StubServer: Sendable {
    /// What happens to a request that no stub matches.
    public enum UnmatchedPolicy: Sendable {
        /// Fail it with `URLError(.resourceUnavailable)` and a report of the closest stubs. The default.
        case fail
        /// Send it to the network.
        case passThrough
    }

    struct State: Sendable {
        var registry = StubRegistry()
        var journal: StubJournal
        var ignored: [(id: UInt64, matcher: RequestMatcher)] = []
        var nextID: UInt64 = 0
    }

    /// What happens to a request that no stub matches.
    public let unmatchedPolicy: UnmatchedPolicy
    /// How many requests the journal keeps; older ones are dropped.
    public let journalCapacity: Int
    /// The largest body the journal keeps whole; a larger one is kept as its SHA-256 (`RecordedRequest.bodySHA256`).
    public let journaledBodyLimit: Int
    /// Where requests that passed through to the network are recorded, as HAR.
    let recorder: Cassette?
    let state: Locked<State>
    /// The slot of `install()`, and those of the configurations this server made.
    private let slots: Locked<Slots>

    private struct Slots: @unchecked Sendable {
        // @unchecked: URLSessionConfiguration is not Sendable; `shared` is only stored and handed out here.
        var installed: ProtocolSlot?
        var configured: [ProtocolSlot] = []
        /// `sessionConfiguration`, once read.
        var shared: URLSessionConfiguration?
    }
    static var log: Logger { Logger(nal: .stubbing) }

    /// The default `journalCapacity`: 1,000 requests.
    public static let defaultJournalCapacity = StubJournal.defaultCapacity
    /// The default `journaledBodyLimit`: 64 KiB.
    public static let defaultJournaledBodyLimit = StubJournal.defaultBodyLimit

    /// Creates a server with no stubs.
    ///
    /// - Parameters:
    ///   - unmatched: what happens to a request that no stub matches.
    ///   - cassette: with `.passThrough` (or `ignore(_:)`), a HAR file that records, redacted, every request that
    ///     went to the network and its response; for apps that use URLSession directly (see `RecordingTransport`
    ///     for the rest).
    ///   - journalCapacity: how many requests `requests` keeps; 0 or more (a negative value is raised to 0, with a
    ///     warning).
    ///   - journaledBodyLimit: the largest body `requests` keeps whole; 0 or more (a negative value is raised to 0,
    ///     with a warning).
    public init(
        unmatched: UnmatchedPolicy = .fail, recordingTo cassette: URL? = nil,
        journalCapacity: Int = StubServer.defaultJournalCapacity,
        journaledBodyLimit: Int = StubServer.defaultJournaledBodyLimit
    ) {
        unmatchedPolicy = unmatched
        recorder = cassette.map { Cassette.shared(file: $0) }
        self.journalCapacity = SettingClamp.clamp(
            journalCapacity, atLeast: 0, "StubServer journalCapacity", log: Self.log)
        self.journaledBodyLimit = SettingClamp.clamp(
            journaledBodyLimit, atLeast: 0, "StubServer journaledBodyLimit", log: Self.log)
        state = Locked(
            State(journal: StubJournal(capacity: self.journalCapacity, bodyLimit: self.journaledBodyLimit)))
        slots = Locked(Slots())
    }

    deinit {
        let (installed, configured) = slots.withLock { ($0.installed, $0.configured) }
        if let installed {
            URLProtocol.unregisterClass(installed.protocolClass)
            installed.release()
        }
        for slot in configured { slot.release() }
    }

    /// A server for Mocker's way of working: `StubServer.shared.install()`.
    public static let shared = StubServer()

    /// This server's ephemeral configuration, the same object on every read, whose sessions are answered by this
    /// server. Change it as you like before you make a session from it (its timeouts and cookie settings are
    /// honoured, read as each request arrives, so do not change it while its sessions run); keep this server's
    /// protocol first in `protocolClasses`. For sessions with other settings, use `makeSessionConfiguration()`.
    public var sessionConfiguration: URLSessionConfiguration {
        slots.withLock { slots in
            if let configuration = slots.shared { return configuration }
            let configuration = makeSessionConfiguration(appendingTo: &slots.configured)
            slots.shared = configuration
            return configuration
        }
    }

    /// A new ephemeral configuration whose sessions are answered by this server, with its own settings: each call
    /// makes another.
    public func makeSessionConfiguration() -> URLSessionConfiguration {
        slots.withLock { makeSessionConfiguration(appendingTo: &$0.configured) }
    }

    private func makeSessionConfiguration(appendingTo configured: inout [ProtocolSlot]) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        let slot = ProtocolSlot(for: self, configuration: configuration)
        configured.append(slot)
        configuration.protocolClasses = [slot.protocolClass] + (configuration.protocolClasses ?? [])
        return configuration
    }

    /// The slots of this server's configurations, newest last (tests count their protocols).
    var configuredSlotIndices: [Int] { slots.withLock { $0.configured.map(\.index) } }

    /// Registers this server with `URLProtocol.registerClass`, as Mocker does.
    ///
    /// On Linux this reaches `URLSession.shared` only if it is called before anything uses `URLSession.shared`, which
    /// takes a snapshot of the registered protocols on first use, and it never reaches sessions made from a
    /// configuration: give those `sessionConfiguration`. A released server unregisters itself, and its class stops
    /// claiming requests, so a forgotten `uninstall()` cannot break later tests.
    public func install() {
        let slot = slots.withLock { slots -> ProtocolSlot in
            if let installed = slots.installed { return installed }
            let slot = ProtocolSlot(for: self)
            slots.installed = slot
            return slot
        }
        slot.setInstalled(true)
        _ = URLProtocol.registerClass(slot.protocolClass)
    }

    /// Undoes `install()`.
    public func uninstall() {
        guard let slot = slots.withLock({ $0.installed }) else { return }
        URLProtocol.unregisterClass(slot.protocolClass)
        slot.setInstalled(false)
    }

    // MARK: Registering

    /// Answers requests that `matcher` accepts with `response`, every time. A stub with a higher `priority` wins over
    /// every stub with a lower one, whatever their specificity.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, response: StubResponse, priority: Int = 0) -> StubHandle {
        register(matcher, .repeating(response), priority: priority)
    }

    /// Answers requests that `matcher` accepts with `responses`, each once, in order (`500, 500, 200`); then the stub
    /// stops matching and the request falls through to other stubs or the unmatched policy.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, responses: [StubResponse], priority: Int = 0) -> StubHandle {
        register(matcher, .sequence(responses), priority: priority)
    }

    /// Answers requests that `matcher` accepts with whatever `handler` returns: echoes, templates, the MockURLProtocol
    /// recipe's request handler. An error it throws fails the request with that error.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, priority: Int = 0,
        handler: @escaping @Sendable (URLRequest) async throws -> StubResponse
    ) -> StubHandle {
        register(matcher, .handler(handler), priority: priority)
    }

    /// Sends requests that `matcher` accepts to the network, before any stub is consulted, whatever the unmatched
    /// policy: Mocker's `ignore(_:)`, for the few real services a stubbed test still talks to.
    @discardableResult
    public func ignore(_ matcher: RequestMatcher) -> StubHandle {
        state.withLock { state in
            state.nextID += 1
            state.ignored.append((state.nextID, matcher))
            return StubHandle(id: state.nextID)
        }
    }

    func register(
        _ matcher: RequestMatcher, _ source: StubEntry.Source, origin: String? = nil, priority: Int = 0
    ) -> StubHandle {
        for problem in source.statusProblems {
            Self.log.error(
                "the stub for \(matcher.description, privacy: .public) \(problem, privacy: .public); requests it matches fail"
            )
        }
        return state.withLock { state in
            state.nextID += 1
            state.registry.add(
                StubEntry(id: state.nextID, matcher: matcher, source: source, origin: origin, priority: priority))
            return StubHandle(id: state.nextID)
        }
    }

    /// The stubs, in the order they are tried (priority, specificity, then the newest first): ids and descriptions.
    func stubList() -> [(id: Int, description: String)] {
        let entries = state.withLock { Array($0.registry.all.values) }
        return entries.sorted { $0.rank > $1.rank }.map { (Int(clamping: $0.id), $0.description) }
    }

    /// Removes a stub or an ignore rule.
    public func remove(_ handle: StubHandle) {
        state.withLock { state in
            state.registry.remove(handle.id)
            state.ignored.removeAll { $0.id == handle.id }
        }
    }

    /// Removes every stub and ignore rule; the journal is kept.
    public func removeAll() {
        state.withLock { state in
            state.registry.removeAll()
            state.ignored.removeAll()
        }
    }
}
