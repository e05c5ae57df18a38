import Foundation
import NALCore
import NALLogging
import NALTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(by seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// `date` as an HTTP date (IMF-fixdate).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// An origin server whose answers the test writes, which records what it was asked. Every answer carries a `Date`
/// field of the test clock's time unless the answer sets its own.
final class CacheTestOrigin: Transport {
    struct Answer: Sendable {
        var status = 200
        var headers: [String: String] = [:]
        var body = Data("body".utf8)
        /// Thrown instead of answering: a failed call.
        var failure: NALError?
    }

    private let clock: TestClock
    private let answer: @Sendable (URLRequest, Int) -> Answer
    private let sent = Locked<[URLRequest]>([])

    /// `answer` gets each request and how many came before it.
    init(clock: TestClock, answer: @escaping @Sendable (URLRequest, Int) -> Answer) {
        self.clock = clock
        self.answer = answer
    }

    var requests: [URLRequest] { sent.withLock { $0 } }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let index = sent.withLock { sent in
            sent.append(request)
            return sent.count - 1
        }
        var reply = answer(request, index)
        if let failure = reply.failure { throw failure }
        if reply.headers["Date"] == nil { reply.headers["Date"] = TestClock.httpDate(clock.now) }
        guard let url = request.url,
            let head = HTTPURLResponse(
                url: url, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: reply.headers)
        else { throw .invalidRequest(.missingURL) }
        return Response(
            request: request, httpResponse: head, data: reply.body,
            timing: ResponseTiming(start: clock.now, duration: .zero))
    }
}
