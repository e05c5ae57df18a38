import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small API whose endpoints carry sample data, as a Moya target would.
enum Shop: RemoteService, Equatable {
    case products, product(Int), order(item: Int), upload(Data)

    var baseURL: URL { URL(string: "https://shop.example.com/api") ?? URL(fileURLWithPath: "/") }
    var path: String {
        switch self {
        case .products: "products"
        case .product(let id): "products/\(id)"
        case .order: "orders"
        case .upload: "uploads"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .products, .product: .get
        case .order, .upload: .post
        }
    }
    var requestType: RequestType {
        switch self {
        case .products, .product: .plain
        case .order(let item): .parameters(["item": .int(item)], encoding: JSONEncoding.default)
        case .upload(let data): .uploadData(data)
        }
    }
    var testData: Data {
        switch self {
        case .product(let id): Data(#"{"id":\#(id)}"#.utf8)
        default: Data("sample".utf8)
        }
    }
}

@Suite("StubTransport")
struct StubTransportTests {
    @Test("Client(stubbing:callbackQueue:) runs completion handlers on that queue")
    func callbackQueue() async {
        let queue = DispatchQueue(label: "nal.tests.stub-callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let client = Client<Shop>(stubbing: .immediate, callbackQueue: queue)
        let onQueue: Bool = await withCheckedContinuation { continuation in
            client.request(.products) { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onQueue)
    }

    #if os(Linux)
        @Test(
            "never, with no real transport named, sends through the default: a chunked trailer is read, no trap",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func neverUsesTheDefaultTransport() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    let client = Client<TestEndpoint>(transport: StubTransport<TestEndpoint>(.never))
                    let response = try? await client.request(FaultServer.endpoint("trailer"))
                    exit(response?.string() == "ok" ? 0 : 1)
                }
            }
        }
    #endif

    @Test("behaviours: immediate, delayed, custom, and never (the real transport)")
    func behaviours() async throws {
        #expect(try await Client<Shop>(stubbing: .immediate).request(.product(7)).string() == #"{"id":7}"#)

        let clock = ContinuousClock()
        let start = clock.now
        let delayed = try await Client<Shop>(stubbing: .delayed(.milliseconds(200))).request(.products)
        #expect(clock.now - start >= .milliseconds(200))
        #expect(delayed.string() == "sample")

        let custom = Client<Shop>(
            stubbing: .custom { target in
                target == .products ? .json(["count": 2]) : .string("missing", status: 404)
            })
        #expect(try await custom.request(.products).string() == #"{"count":2}"#)
        await #expect(throws: NALError.self) { try await custom.request(.product(1)) }

        let real = MemoryTransport(body: Data("from the network".utf8))
        let never = Client<Shop>(transport: StubTransport<Shop>(.never, realTransport: real))
        #expect(try await never.request(.products).string() == "from the network")
        #expect(real.requests.count == 1)
    }

    @Test("registered responses match the prepared request and play in order; the last repeats; others fall back")
    func registration() async throws {
        let stubs = StubTransport<Shop>(.immediate)
        stubs.stub(.order(item: 1), with: .string("first"), .string("second"))
        stubs.stub(.order(item: 2), with: .string("other body"))
        let client = Client<Shop>(transport: stubs)
        #expect(try await client.request(.order(item: 1)).string() == "first")
        #expect(try await client.request(.order(item: 1)).string() == "second")
        #expect(try await client.request(.order(item: 1)).string() == "second")
        #expect(try await client.request(.order(item: 2)).string() == "other body")
        #expect(try await client.request(.order(item: 3)).string() == "sample", "unregistered: the behaviour")
        stubs.stub(.upload(Data("A".utf8)), with: .string("got A"))
        #expect(try await client.request(.upload(Data("A".utf8))).string() == "got A")
        #expect(try await client.request(.upload(Data("B".utf8))).string() == "sample")
    }

    @Test("stubbed calls go through middleware and validation as real ones do")
    func middlewareAndValidation() async throws {
        let stubs = StubTransport<Shop>(.immediate)
        stubs.stub(.products, with: .string("busy", status: 503), .string("ok"))
        let client = Client<Shop>(middleware: [RetryMiddleware(baseDelay: .milliseconds(1))], transport: stubs)
        #expect(try await client.request(.products).string() == "ok")
        #expect(stubs.requests.count == 2)

        stubs.stub(.product(9), with: .string("gone", status: 410))
        do {
            _ = try await client.request(.product(9))
            Issue.record("a 410 passed validation")
        } catch {
            #expect(error.response?.statusCode == 410)
        }
    }

    @Test("timeouts, the in-memory limit, network errors, truncation and redirects behave as URLSessionTransport's")
    func realisticFailures() async throws {
        let stubs = StubTransport<TestEndpoint>(
            .custom { endpoint in
                switch endpoint.path {
                case "slow": .string("late").delayed(by: .seconds(30))
                case "big": StubResponse(body: Data(count: 4096))
                case "down": .networkError(.cannotConnectToHost)
                case "cut": StubResponse(body: Data(count: 1000)).truncated(after: 100)
                case "moved": .redirect(to: URL(string: "https://api.example.com/v1/here") ?? URL(fileURLWithPath: "/"))
                default: .string("here")
                }
            })
        stubs.stub(TestEndpoint(path: "here"), with: .string("here"))
        let client = Client<TestEndpoint>(transport: stubs)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await client.request(TestEndpoint(path: "slow", timeout: 0.3))
            Issue.record("no timeout")
        } catch {
            guard case .timedOut(let failure) = error else { throw error }
            #expect(failure.limit == .idle)
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(300)))
        do {
            _ = try await client.request(TestEndpoint(path: "slow", totalTimeout: 0.3))
            Issue.record("no total timeout")
        } catch {
            guard case .timedOut(let failure) = error else { throw error }
            #expect(failure.limit == .total)
        }
        await #expect(throws: NALError.self) {
            try await client.request(TestEndpoint(path: "big"), options: RequestOptions(maximumResponseSize: 1024))
        }
        do {
            _ = try await client.request(TestEndpoint(path: "down"))
        } catch {
            guard case .transport(let urlError) = error else { throw error }
            #expect(urlError.code == .cannotConnectToHost)
        }
        do {
            _ = try await client.request(TestEndpoint(path: "cut"))
        } catch {
            guard case .transport(let urlError) = error else { throw error }
            #expect(urlError.code == .networkConnectionLost)
        }
        let moved = try await client.request(TestEndpoint(path: "moved"))
        #expect(moved.string() == "here")
        #expect(moved.httpResponse.url?.path == "/v1/here")
        let unfollowed = Client<TestEndpoint>(
            transport: StubTransport<TestEndpoint>(
                .custom { _ in .redirect(to: URL(fileURLWithPath: "/")) }, redirectPolicy: .doNotFollow))
        #expect(try await unfollowed.request(TestEndpoint(validation: .none)).statusCode == 302)
    }

    @Test("a redirect loop is followed as far as URLSessionTransport follows one (20 redirects), then fails")
    func redirectLoopLimit() async throws {
        let stubs = StubTransport<TestEndpoint>(.never)
        let loop = try #require(URL(string: "https://api.example.com/v1/loop"))
        stubs.stub(TestEndpoint(path: "loop"), with: .redirect(to: loop))
        do {
            _ = try await Client<TestEndpoint>(transport: stubs).request(TestEndpoint(path: "loop"))
            Issue.record("a redirect loop ended")
        } catch {
            guard case .transport(let urlError) = error else { throw error }
            #expect(urlError.code == .httpTooManyRedirects)
        }
        #expect(stubs.journal.count == URLSessionTransport.maximumRedirects + 1)
        #expect(URLSessionTransport.maximumRedirects == 20)
    }
}

@Suite("StubResponse")
struct StubResponseTests {
    @Test("a speed of 0 or a negative truncation set on the properties is clamped: no division by zero, no trap")
    func clampedProperties() async throws {
        var slow = StubResponse(body: Data(count: 10))
        slow.bytesPerSecond = 0
        #expect(slow.bytesPerSecond == 1)
        slow.bytesPerSecond = 1_000_000
        var cut = StubResponse(body: Data(count: 10))
        cut.truncationPoint = -1
        #expect(cut.truncationPoint == 0)
        let server = StubServer()
        server.stub(.path(TestEndpoint.exampleBase.path + "/slow"), response: slow)
        server.stub(.path(TestEndpoint.exampleBase.path + "/cut"), response: cut)
        let client = server.client()
        #expect(try await client.request(TestEndpoint(path: "slow")).data.count == 10)
        await #expect(throws: NALError.self) { try await client.request(TestEndpoint(path: "cut")) }
        let (cutResponse, slowResponse) = (cut, slow)
        let stubbed = Client<TestEndpoint>(
            transport: StubTransport<TestEndpoint>(
                .custom { target in
                    target.path == "cut" ? cutResponse : slowResponse
                }))
        #expect(try await stubbed.request(TestEndpoint(path: "slow")).data.count == 10)
        await #expect(throws: NALError.self) { try await stubbed.request(TestEndpoint(path: "cut")) }
    }

    @Test("shorthands: JSON with sorted keys, text, a network error, a redirect")
    func shorthands() async throws {
        struct Item: Encodable { var zeta = 1, alpha = "a" }
        let json = StubResponse.json(Item(), status: 201)
        #expect(json.status == 201)
        #expect(json.headers["Content-Type"] == "application/json")
        guard case .data(let body) = json.body else { throw CancellationError() }
        #expect(String(decoding: body, as: UTF8.self) == #"{"alpha":"a","zeta":1}"#)
        struct Bad: Encodable { var value = Double.nan }
        #expect(StubResponse.json(Bad()).status == 500)
        #expect(StubResponse.string("hi").headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(StubResponse.networkError(.timedOut).failure == .timedOut)
        let redirect = StubResponse.redirect(to: try #require(URL(string: "https://x.test/y")), status: 307)
        #expect(redirect.status == 307)
        #expect(redirect.headers["Location"] == "https://x.test/y")
    }

    @Test("throttling presets have OHHTTPStubs' values; modifiers compose")
    func modifiers() {
        #expect(NetworkSpeed.allCases.map(\.bytesPerSecond) == [7_000, 16_000, 400_000, 900_000, 1_500_000])
        let response = StubResponse.string("x").delayed(by: .seconds(1)).throttled(.edge).truncated(after: 10)
        #expect(response.delay == .seconds(1))
        #expect(response.bytesPerSecond == 16_000)
        #expect(response.truncationPoint == 10)
    }

    @Test("a throttled body takes the time its size and speed say")
    func throttledTiming() async throws {
        let body = Data(count: 30_000)
        let client = Client<TestEndpoint>(
            transport: StubTransport<TestEndpoint>(
                .custom { _ in StubResponse(body: body).throttled(bytesPerSecond: 100_000) }))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await client.request(TestEndpoint()).data.count == 30_000)
        let elapsed = clock.now - start
        // At least what the speed allows; how much longer a loaded machine takes is not this test's to bound.
        #expect(elapsed >= .milliseconds(280), "took \(elapsed)")
    }
}
