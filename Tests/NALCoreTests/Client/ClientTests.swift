import Foundation
import NALLogging
import NALTestSupport
import Synchronization
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Client over an in-memory transport")
struct ClientTests {
    struct User: Decodable, Equatable {
        var login: String
        var id: Int
    }

    static let usersJSON = Data(#"{"data":{"items":[{"login":"ada","id":1},{"login":"grace","id":2}]},"count":2}"#.utf8)

    @Test(
        "validation runs after the transport, following endpoint.validation",
        arguments: [
            (200, RequestValidation.successCodes, true), (299, .successCodes, true), (302, .successCodes, false),
            (418, .successCodes, false), (302, .successAndRedirectCodes, true), (404, .successAndRedirectCodes, false),
            (418, .customCodes([418]), true), (200, .customCodes([201]), false), (500, RequestValidation.none, true),
        ]
    )
    func validation(status: Int, validation: RequestValidation, accepted: Bool) async throws {
        let client = Client<TestEndpoint>(transport: MemoryTransport(status: status, body: Data("x".utf8)))
        do {
            let response = try await client.request(TestEndpoint(validation: validation))
            #expect(accepted)
            #expect(response.statusCode == status)
        } catch {
            #expect(!accepted)
            guard case NALError.unacceptableStatusCode(let response) = error else {
                Issue.record("expected unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == status)
            #expect(error.response?.data == Data("x".utf8))
        }
    }

    @Test("decoding the body, a key path, and failures that keep the response")
    func decoding() async throws {
        let client = Client<TestEndpoint>(transport: MemoryTransport(body: Self.usersJSON))
        let users = try await client.request(TestEndpoint(), as: [User].self, atKeyPath: "data.items")
        #expect(users == [User(login: "ada", id: 1), User(login: "grace", id: 2)])
        #expect(try await client.request(TestEndpoint(), as: Int.self, atKeyPath: "count") == 2)
        #expect(try await client.request(TestEndpoint(), as: User.self, atKeyPath: "data.items.1").login == "grace")

        do {
            _ = try await client.request(TestEndpoint(), as: User.self, atKeyPath: "data.missing")
            Issue.record("a missing key path decoded")
        } catch {
            guard case NALError.decoding(let failure) = error else {
                Issue.record("expected decoding, got \(error)")
                return
            }
            #expect(failure.keyPath == "data.missing")
            #expect(failure.type == "User")
            #expect(error.response?.data == Self.usersJSON)
            #expect("\(error)".contains("Decoding User at key path 'data.missing' failed"))
        }
    }

    @Test("a key path past an array's end fails to decode, an empty one decodes the whole body; 2xx is 200 to 299")
    func keyPathEdges() throws {
        struct Count: Decodable { let count: Int }
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/users")))
        let response = try MemoryTransport.response(to: request, body: Self.usersJSON)
        #expect(throws: NALError.self) { _ = try response.decode(User.self, atKeyPath: "data.items.2") }
        #expect(throws: NALError.self) { _ = try response.decode(User.self, atKeyPath: "data.items.-1") }
        #expect(try response.decode(Count.self, atKeyPath: "").count == 2)
        for (status, accepted) in [(199, false), (200, true), (299, true), (300, false)] {
            let answer = try MemoryTransport.response(to: request, status: status)
            #expect(((try? answer.filterSuccessfulStatusCodes()) != nil) == accepted, "\(status)")
        }
    }

    @Test("response helpers: string, json, filters, case-insensitive headers")
    func responseHelpers() async throws {
        let response = try await Client<TestEndpoint>(transport: MemoryTransport(body: Self.usersJSON)).request(
            TestEndpoint())
        #expect(response.string()?.hasPrefix("{\"data\"") == true)
        guard case .dictionary(let object) = try response.json() else {
            Issue.record("json() is not an object")
            return
        }
        #expect(object["count"] == 2)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["CONTENT-TYPE"] == "application/json")
        #expect(try response.filterSuccessfulStatusCodes().statusCode == 200)
        #expect(throws: NALError.self) { _ = try response.filter(statusCodes: 300..<400) }
    }

    @Test("endpointMapping adds headers and swaps the request type; willSend runs last, asynchronously")
    func hooks() async throws {
        let transport = MemoryTransport()
        let client = Client<TestEndpoint>(
            transport: transport,
            endpointMapping: { target in
                Endpoint(target).adding(headers: ["X-Mapped": "1"]).replacing(
                    requestType: .parameters(["v": 2], encoding: URLEncoding.queryString))
            },
            willSend: { request, _ in
                try? await Task.sleep(for: .milliseconds(1))
                var request = request
                try request.setValidatedHeader("signed", forName: "X-Signature")
                return request
            })
        _ = try await client.request(TestEndpoint(path: "x", headers: ["X-Own": "a"]))
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "X-Own") == "a")
        #expect(sent.value(forHTTPHeaderField: "X-Mapped") == "1")
        #expect(sent.value(forHTTPHeaderField: "X-Signature") == "signed")
        #expect(sent.url?.absoluteString == "https://api.example.com/v1/x?v=2")
    }

    @Test("a failing hook or bad endpoint is an NALError before anything is sent")
    func hookFailure() async {
        let transport = MemoryTransport()
        struct Refused: Error {}
        let client = Client<TestEndpoint>(transport: transport, willSend: { _, _ in throw Refused() })
        do {
            _ = try await client.request(TestEndpoint())
            Issue.record("a failing hook let the request through")
        } catch {
            guard case .hookFailed(let underlying) = error else {
                Issue.record("expected hookFailed, got \(error)")
                return
            }
            #expect(underlying is Refused)
        }
        let bad = Client<TestEndpoint>(transport: transport)
        await #expect(throws: NALError.self) { try await bad.request(TestEndpoint(headers: ["X": "a\nb"])) }
        #expect(transport.requests.isEmpty)
    }

    @Test("completion handler on the given queue, and its Cancellable")
    func completionHandler() async throws {
        let queue = DispatchQueue(label: "nal.tests.callback")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let client = Client<TestEndpoint>(transport: MemoryTransport(body: Data("ok".utf8)))
        let result: Result<Response, NALError> = await withCheckedContinuation { continuation in
            client.request(TestEndpoint(), callbackQueue: queue) { result in
                #expect(DispatchQueue.getSpecific(key: key) == true)
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get().string() == "ok")

        let slow = Client<TestEndpoint>(transport: MemoryTransport(delay: .seconds(30)))
        let cancelled: Result<Response, NALError> = await withCheckedContinuation { continuation in
            let token = slow.request(TestEndpoint(), callbackQueue: queue) { continuation.resume(returning: $0) }
            #expect(!token.isCancelled)
            token.cancel()
            #expect(token.isCancelled)
        }
        guard case .failure(.cancelled) = cancelled else {
            Issue.record("expected .cancelled, got \(cancelled)")
            return
        }
    }

    @Test("completion handlers run on the call's queue, else on the client's, else on the main queue")
    func callbackQueuePrecedence() async throws {
        let clientQueue = DispatchQueue(label: "nal.tests.client-callbacks")
        let callQueue = DispatchQueue(label: "nal.tests.call-callbacks")
        let key = DispatchSpecificKey<String>()
        clientQueue.setSpecific(key: key, value: "client")
        callQueue.setSpecific(key: key, value: "call")
        let client = Client<TestEndpoint>(
            transport: MemoryTransport(body: Data("ok".utf8)), callbackQueue: clientQueue)
        func deliveredOn(_ queue: DispatchQueue?) async -> String? {
            await withCheckedContinuation { continuation in
                client.request(TestEndpoint(), callbackQueue: queue) { _ in
                    continuation.resume(returning: DispatchQueue.getSpecific(key: key))
                }
            }
        }
        #expect(await deliveredOn(callQueue) == "call")
        #expect(await deliveredOn(nil) == "client")
        // Without either, the main queue (which a test process does not run, so it is compared, not waited for).
        // (Linux hands out a new wrapper of the main queue each time, so the label is compared.)
        #expect(
            Client<TestEndpoint>(transport: MemoryTransport()).deliveryQueue(for: nil).label
                == DispatchQueue.main.label)
        #expect(client.deliveryQueue(for: nil) === clientQueue)
        #expect(client.deliveryQueue(for: callQueue) === callQueue)
    }

    @Test("the idle timeout reaches any transport in the request: the call's wins over the endpoint's")
    func idleTimeoutTravelsInTheRequest() async throws {
        let transport = MemoryTransport()
        let client = Client<TestEndpoint>(transport: transport)
        _ = try await client.request(TestEndpoint(path: "a", timeout: 7))
        _ = try await client.request(TestEndpoint(path: "b", timeout: 7), options: RequestOptions(timeout: 0.25))
        #expect(transport.requests.map(\.timeoutInterval) == [7, 0.25])
    }

    @Test("the total timeout ends a call that a transport keeps waiting, and the deadline reaches the transport")
    func totalTimeoutWrapsTheTransport() async throws {
        let client = Client<TestEndpoint>(transport: MemoryTransport(delay: .seconds(30)))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await client.request(TestEndpoint(totalTimeout: 0.2))
            Issue.record("the call outlived its total timeout")
        } catch {
            guard case .timedOut(let failure) = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
            #expect(failure.limit == .total)
            #expect(failure.seconds == 0.2)
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(200)))
    }

    @Test(
        "a total timeout that falls due as the answer comes: every call ends with one of the two",
        .timeLimit(.minutes(1)))
    func deadlineMeetsTheAnswer() async {
        // The deadline timer's task and the call's task race to end each call; under ThreadSanitizer
        // (scripts/tsan.sh) this is where state they share without a lock it can see would show. Beside the racing
        // calls, a tenth can only be answered (a deadline far away) and a tenth can only time out (an answer 30 s
        // away), so that a timer or an answer that never ends a call fails here.
        enum Kind: Sendable { case racing, answerOnly, timeoutOnly }
        let quick = Client<TestEndpoint>(transport: MemoryTransport(delay: .milliseconds(2)))
        let slow = Client<TestEndpoint>(transport: MemoryTransport(delay: .seconds(30)))
        let calls = 400
        var ends: [Kind: (answered: Int, timedOut: Int)] = [:]
        await withTaskGroup(of: (Kind, NALError?).self) { group in
            for index in 0..<calls {
                let kind: Kind = index % 10 == 0 ? .answerOnly : index % 10 == 1 ? .timeoutOnly : .racing
                // Racing: from before the answer to well after it, in steps of a millisecond.
                let totalTimeout = kind == .answerOnly ? 10 : 0.001 * Double(1 + index % 8)
                let client = kind == .timeoutOnly ? slow : quick
                group.addTask {
                    do throws(NALError) {
                        _ = try await client.request(TestEndpoint(totalTimeout: totalTimeout))
                        return (kind, nil)
                    } catch {
                        return (kind, error)
                    }
                }
            }
            for await (kind, failure) in group {
                switch failure {
                case nil: ends[kind, default: (0, 0)].answered += 1
                case .timedOut(let timeout)? where timeout.limit == .total: ends[kind, default: (0, 0)].timedOut += 1
                case let other?: Issue.record("expected the answer or the total timeout, got \(other)")
                }
            }
        }
        #expect(ends[.answerOnly]?.answered == calls / 10 && ends[.answerOnly]?.timedOut == 0)
        #expect(ends[.timeoutOnly]?.timedOut == calls / 10 && ends[.timeoutOnly]?.answered == 0)
        let racing = ends[.racing].map { $0.answered + $0.timedOut }
        #expect(racing == calls - 2 * calls / 10)
    }

    @Test("response headers: built once, case-insensitive lookup, equality independent of order and name case")
    func responseHeaders() throws {
        let url = try #require(URL(string: "https://api.example.com/x"))
        let request = URLRequest(url: url)
        let http = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["X-B": "2", "X-A": "1", "Content-Type": "text/plain"]))
        let response = Response(
            request: request, httpResponse: http, data: Data(), timing: ResponseTiming(start: Date(), duration: .zero))
        #expect(response.headers.fields.map(\.name) == ["Content-Type", "X-A", "X-B"])
        #expect(response.headers["x-a"] == "1")
        #expect(response.headers == response.headers)
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) == HTTPHeaders([("b", "2"), ("a", "1")]))
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != HTTPHeaders([("A", "2"), ("B", "1")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("A", "1"), ("A", "1")]))
    }

    @Test("a repeated header: lookup answers its first value; the dictionary joins them all under the first spelling")
    func repeatedHeaders() {
        let headers = HTTPHeaders([("Set-Cookie", "a=1"), ("X-One", "x"), ("set-cookie", "b=2"), ("SET-COOKIE", "c=3")])
        #expect(headers["set-cookie"] == "a=1")
        #expect(headers.dictionary == ["Set-Cookie": "a=1, b=2, c=3", "X-One": "x"])
    }

    @Test("one call evaluates the endpoint's requestType once")
    func requestTypeEvaluatedOnce() async throws {
        struct Counting: RemoteService {
            let reads = Locked(0)
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "items" }
            var method: HTTPMethod { .get }
            var requestType: RequestType {
                reads.withLock { $0 += 1 }
                return .parameters(["page": 1], encoding: URLEncoding.default)
            }
        }
        let endpoint = Counting()
        _ = try await Client<Counting>(transport: MemoryTransport()).request(endpoint)
        #expect(endpoint.reads.withLock { $0 } == 1)
    }

    @Test("logs name the endpoint's case but never its payload")
    func logsHidePayloads() async throws {
        enum Login: RemoteService {
            case login(user: String, password: String)
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "session" }
            var method: HTTPMethod { .post }
            var requestType: RequestType { .plain }
        }
        let client = Client<Login>(transport: MemoryTransport(status: 401))
        try await LogCapture.capture("dev.nal=debug,*=off") { sink in
            _ = try? await client.request(.login(user: "ada", password: "hunter2"))
            let lines = sink.entries(subsystem: "dev.nal", category: "request_operation", containing: "Login.login")
            #expect(lines.map(\.message) == ["401 from Login.login rejected by validation"])
            #expect(!sink.entries.contains { $0.message.contains("hunter2") })
        }
    }
}

/// The first call waits until it is cancelled; later calls answer at once.
final class FirstCallHangs: Transport {
    private let count = Locked(0)
    var calls: Int { count.withLock { $0 } }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let call = count.withLock { value -> Int in
            value += 1
            return value
        }
        if call == 1 {
            do { try await Task.sleep(for: .seconds(30)) } catch { throw .cancelled }
        }
        return try MemoryTransport.response(to: request)
    }
}
