import Dispatch
import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers only after `seconds`, and ignores cancellation meanwhile: as a middleware stuck in a
/// slow token refresh, or a hook that never looks at `Task.isCancelled`, behaves.
struct StubbornTransport: Transport {
    let seconds: Double
    let sent = Locked(0)

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        sent.withLock { $0 += 1 }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
        }
        return try MemoryTransport.response(to: request, status: 401)
    }
}

@Suite("The Client ends calls on time, whatever runs inside them")
struct CallLimitsTests {
    @Test("the total timeout ends a call whose transport ignores cancellation, on time")
    func deadlineBeatsAStubbornTransport() async throws {
        let client = Client<TestEndpoint>(transport: StubbornTransport(seconds: 20))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await client.request(TestEndpoint(totalTimeout: 1))
            Issue.record("a 20 s call passed a 1 s total timeout")
        } catch {
            guard case .timedOut(let failure) = error else {
                Issue.record("expected a total timeout, got \(error)")
                return
            }
            #expect(failure.limit == .total)
        }
        #expect(clock.now - start < Timing.bound(.seconds(1)))
    }

    @Test("with a total timeout, cancelling the caller ends the call at once with .cancelled, never the late answer")
    func cancellationBeatsAStubbornTransport() async throws {
        let client = Client<TestEndpoint>(transport: StubbornTransport(seconds: 15))
        let clock = ContinuousClock()
        let start = clock.now
        let call = Task { () async -> Result<Response, NALError> in
            do throws(NALError) {
                return .success(try await client.request(TestEndpoint(validation: .none, totalTimeout: 60)))
            } catch {
                return .failure(error)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        let outcome = await call.value
        guard case .failure(.cancelled) = outcome else {
            Issue.record("expected .cancelled, got \(outcome)")
            return
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(300)))
    }

    @Test(
        "without a total timeout, cancellation is cooperative: a part that ignores it delays .cancelled, never a success"
    )
    func cooperativeCancellation() async throws {
        let transport = StubbornTransport(seconds: 1)
        let client = Client<TestEndpoint>(transport: transport)
        let clock = ContinuousClock()
        let start = clock.now
        let call = Task { () async -> Result<Response, NALError> in
            do throws(NALError) {
                return .success(try await client.request(TestEndpoint(validation: .none)))
            } catch {
                return .failure(error)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        let outcome = await call.value
        guard case .failure(.cancelled) = outcome else {
            Issue.record("expected .cancelled, got \(outcome)")
            return
        }
        #expect(clock.now - start >= .milliseconds(900), "the call ran in the caller's task, to the transport's end")
        #expect(transport.sent.withLock { $0 } == 1)
    }

    @Test("the completion form's cancel() delivers .cancelled at once")
    func completionCancel() async throws {
        let client = Client<TestEndpoint>(transport: StubbornTransport(seconds: 10))
        let delivered = Locked<Result<Response, NALError>?>(nil)
        let clock = ContinuousClock()
        let start = clock.now
        let token = client.request(
            TestEndpoint(validation: .none), callbackQueue: DispatchQueue.global()
        ) { result in delivered.withLock { $0 = result } }
        try await Task.sleep(for: .milliseconds(200))
        token.cancel()
        while delivered.withLock({ $0 }) == nil, clock.now - start < Timing.bound(.seconds(1)) {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard case .failure(.cancelled)? = delivered.withLock({ $0 }) else {
            Issue.record("expected .cancelled, got \(String(describing: delivered.withLock { $0 }))")
            return
        }
    }

    @Test("a willSend hook that throws CancellationError ends the call with .cancelled, not hookFailed")
    func hookThrowsCancellation() async throws {
        let client = Client<TestEndpoint>(
            transport: MemoryTransport(), willSend: { _, _ in throw CancellationError() })
        do {
            _ = try await client.request(TestEndpoint())
            Issue.record("the call passed")
        } catch {
            guard case .cancelled = error else {
                Issue.record("expected .cancelled, got \(error)")
                return
            }
        }
    }

    @Test("a willSend hook interrupted by cancellation ends with .cancelled, as Cancellable promises")
    func hookCancellation() async throws {
        let client = Client<TestEndpoint>(
            transport: MemoryTransport(),
            willSend: { request, _ in
                try await Task.sleep(for: .seconds(30))
                return request
            })
        let call = Task { () async -> NALError? in
            do throws(NALError) {
                _ = try await client.request(TestEndpoint())
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        let error = await call.value
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
    }
}
