import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Middleware chain")
struct ChainTests {
    #if os(Linux)
        @Test("Client(middleware:) with no transport named sends through the process's shared CurlTransport")
        func defaultTransport() throws {
            let client = Client<TestEndpoint>(middleware: [])
            let chain = try #require(client.transport as? MiddlewareChain)
            let shared = try #require(DefaultTransport.sharedCurlTransport)
            #expect((chain.transport as? CurlTransport) === shared)
        }

        @Test("a chain's calls wait at its CurlTransport's entrance, before any middleware; others have none")
        func entranceThroughTheChain() throws {
            let overCurl = MiddlewareChain([], transport: MiddlewareChain([], transport: try CurlTransport()))
            #expect(overCurl.callEntrance != nil)
            #expect(MiddlewareChain([], transport: MemoryTransport()).callEntrance == nil)
        }
    #endif

    @Test("Client(middleware:callbackQueue:) runs completion handlers on that queue")
    func callbackQueue() async {
        let queue = DispatchQueue(label: "nal.tests.middleware-callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let client = Client<TestEndpoint>(middleware: [], transport: MemoryTransport(), callbackQueue: queue)
        let onQueue: Bool = await withCheckedContinuation { continuation in
            client.request(TestEndpoint()) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onQueue)
    }

    struct Thrower: Middleware {
        struct Boom: Error {}
        func intercept(
            _ request: URLRequest, context: TransportContext,
            next: @Sendable (URLRequest, TransportContext) async throws -> Response
        ) async throws -> Response {
            throw Boom()
        }
    }

    struct NALThrower: Middleware {
        func intercept(
            _ request: URLRequest, context: TransportContext,
            next: @Sendable (URLRequest, TransportContext) async throws -> Response
        ) async throws -> Response {
            throw NALError.invalidRequest(.missingURL)
        }
    }

    /// Answers from memory without calling `next`.
    struct Cache: Middleware {
        func intercept(
            _ request: URLRequest, context: TransportContext,
            next: @Sendable (URLRequest, TransportContext) async throws -> Response
        ) async throws -> Response {
            try MemoryTransport.response(to: request, status: 203, body: Data("cached".utf8))
        }
    }

    /// Calls `next` twice and returns the second answer.
    struct Twice: Middleware {
        func intercept(
            _ request: URLRequest, context: TransportContext,
            next: @Sendable (URLRequest, TransportContext) async throws -> Response
        ) async throws -> Response {
            _ = try await next(request, context)
            return try await next(request, context)
        }
    }

    @Test("the first middleware is outermost: a>, b>, c>, c<, b<, a<")
    func ordering() async throws {
        let trace = Trace()
        let client = Client<TestEndpoint>(
            middleware: ["a", "b", "c"].map { Tracing(name: $0, trace: trace) }, transport: MemoryTransport())
        _ = try await client.request(TestEndpoint())
        #expect(trace.all == ["a>", "b>", "c>", "c<", "b<", "a<"])
    }

    @Test("a middleware that throws surfaces middlewareFailed naming it; an NALError passes through unchanged")
    func errors() async throws {
        let transport = MemoryTransport()
        do {
            _ = try await Client<TestEndpoint>(middleware: [Thrower()], transport: transport).request(TestEndpoint())
            Issue.record("no error")
        } catch {
            guard case .middlewareFailed(let name, let underlying) = error else {
                Issue.record("expected middlewareFailed, got \(error)")
                return
            }
            #expect(name == "Thrower")
            #expect(underlying is Thrower.Boom)
            #expect("\(error)".hasPrefix("The middleware Thrower failed: "))
        }
        do {
            // Wrapped once: an outer middleware sees the inner failure as the same NALError.
            let trace = Trace()
            _ = try await Client<TestEndpoint>(
                middleware: [Tracing(name: "outer", trace: trace), NALThrower()], transport: transport
            ).request(TestEndpoint())
            Issue.record("no error")
        } catch {
            guard case .invalidRequest(.missingURL) = error else {
                Issue.record("expected the middleware's own NALError, got \(error)")
                return
            }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("next may be called zero times (a cache) or several times")
    func zeroOrManyCalls() async throws {
        let transport = MemoryTransport()
        let cached = try await Client<TestEndpoint>(middleware: [Cache()], transport: transport).request(TestEndpoint())
        #expect(cached.statusCode == 203)
        #expect(cached.string() == "cached")
        #expect(transport.requests.isEmpty)
        _ = try await Client<TestEndpoint>(middleware: [Twice()], transport: transport).request(TestEndpoint())
        #expect(transport.requests.count == 2)
    }

    @Test("middleware sees a 404 as a response; the Client validates after the chain")
    func validationAfterTheChain() async throws {
        struct Seen: HookMiddleware {
            let statuses = Locked<[Int]>([])
            func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async {
                if case .success(let response) = result { statuses.withLock { $0.append(response.statusCode) } }
            }
        }
        let seen = Seen()
        let client = Client<TestEndpoint>(middleware: [seen], transport: MemoryTransport(status: 404))
        await #expect(throws: NALError.self) { try await client.request(TestEndpoint()) }
        #expect(seen.statuses.withLock { $0 } == [404])
    }

    @Test("HookMiddleware runs prepare, willSend, didReceive, process in order; process can change the outcome")
    func hookOrder() async throws {
        final class Hooks: HookMiddleware {
            let trace = Trace()
            func prepare(_ request: URLRequest, context: TransportContext) async throws -> URLRequest {
                trace.record("prepare")
                var request = request
                request.setValue("1", forHTTPHeaderField: "X-Prepared")
                return request
            }
            func willSend(_ request: URLRequest, context: TransportContext) async {
                trace.record("willSend \(request.value(forHTTPHeaderField: "X-Prepared") ?? "-")")
            }
            func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async {
                trace.record("didReceive")
            }
            func process(
                _ result: Result<Response, NALError>, context: TransportContext
            ) async
                -> Result<Response, NALError>
            {
                trace.record("process")
                return result.flatMap { response in
                    Result { () throws(NALError) in
                        try MemoryTransport.response(to: response.request, status: 200, body: Data("processed".utf8))
                    }
                }
            }
        }
        let hooks = Hooks()
        let transport = MemoryTransport(status: 500)
        let response = try await Client<TestEndpoint>(middleware: [hooks], transport: transport).request(TestEndpoint())
        #expect(response.string() == "processed")
        #expect(hooks.trace.all == ["prepare", "willSend 1", "didReceive", "process"])
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Prepared") == "1")
    }

    @Test("didReceive runs on transport failures and on cancellation too")
    func didReceiveOnEveryPath() async throws {
        struct Outcomes: HookMiddleware {
            let seen = Locked<[String]>([])
            func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async {
                switch result {
                case .success: seen.withLock { $0.append("success") }
                case .failure(.cancelled): seen.withLock { $0.append("cancelled") }
                case .failure: seen.withLock { $0.append("failure") }
                }
            }
        }
        let outcomes = Outcomes()
        let failing = Client<TestEndpoint>(
            middleware: [outcomes], transport: URLSessionTransport())
        _ = try? await failing.request(TestEndpoint(baseURL: try #require(URL(string: "http://127.0.0.1:1"))))
        let slow = Client<TestEndpoint>(middleware: [outcomes], transport: MemoryTransport(delay: .seconds(30)))
        let task = Task { try await slow.request(TestEndpoint()) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        _ = try? await task.value
        #expect(outcomes.seen.withLock { $0 } == ["failure", "cancelled"])
    }

    @Test("a HookMiddleware used on its own reports a CancellationError from next as cancelled")
    func hookSeesInnerCancellation() async throws {
        struct Outcome: HookMiddleware {
            let seen = Locked<[String]>([])
            func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async {
                switch result {
                case .failure(.cancelled): seen.withLock { $0.append("cancelled") }
                case .failure(let error): seen.withLock { $0.append("failure \(error)") }
                case .success: seen.withLock { $0.append("success") }
                }
            }
        }
        let outcome = Outcome()
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        var thrown: (any Error)?
        do {
            _ = try await outcome.intercept(request, context: TransportContext(endpoint: TestEndpoint())) { _, _ in
                throw CancellationError()
            }
        } catch {
            thrown = error
        }
        guard case .cancelled? = thrown as? NALError else {
            Issue.record("expected cancelled, got \(String(describing: thrown))")
            return
        }
        #expect(outcome.seen.withLock { $0 } == ["cancelled"])
    }

    @Test("Client(middleware:) keeps the core initialiser's hooks")
    func convenienceInitializer() async throws {
        let transport = MemoryTransport()
        let client = Client<TestEndpoint>(
            middleware: [], transport: transport,
            endpointMapping: { Endpoint($0).adding(headers: ["X-Mapped": "1"]) },
            willSend: { request, _ in
                var request = request
                request.setValue("1", forHTTPHeaderField: "X-Hooked")
                return request
            })
        _ = try await client.request(TestEndpoint())
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Mapped") == "1")
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Hooked") == "1")
    }
}
