import Foundation
import NALCore
import NALLogging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moya's idiom `(error as CustomStringConvertible).description`, and `localizedDescription`, go through `NSError` on
/// Linux: NAL's errors must print their sentence there too, not `Error Domain=… "(null)"`.
@Suite("Errors print their sentence through Foundation's routes")
struct ErrorBridgingTests {
    static func expectSentence(_ error: any Error & CustomStringConvertible) {
        let sentence = error.description
        let bridged: any Error = error
        #expect(bridged.localizedDescription == sentence)
        // Code that asks for LocalizedError itself (as Alamofire's and many apps' error views do).
        #expect((bridged as? any LocalizedError)?.errorDescription == sentence)
        #expect((bridged as NSError).localizedDescription == sentence)
        #expect((bridged as any CustomStringConvertible).description.contains("\"\(sentence)\""))
        #expect(!(bridged as any CustomStringConvertible).description.contains("(null)"))
    }

    @Test("NALError, whatever its case")
    func nalError() throws {
        Self.expectSentence(NALError.cancelled)
        Self.expectSentence(NALError.invalidRequest(.invalidMethod("GE T")))
        Self.expectSentence(
            NALError.timedOut(TimeoutFailure(limit: .idle, seconds: 2, url: URL(string: "https://api.example.com"))))
    }

    @Test("NALError.response is the response each case that holds one carries, and nil for the others")
    func response() throws {
        struct Refused: Error {}
        let url = try #require(URL(string: "https://api.example.com/v1/token"))
        let http = try #require(HTTPURLResponse(url: url, statusCode: 401, httpVersion: nil, headerFields: nil))
        let answer = Response(
            request: URLRequest(url: url), httpResponse: http, data: Data("denied".utf8),
            timing: ResponseTiming(start: Date(), duration: .zero))
        let decoding = DecodingFailure(type: "Token", keyPath: nil, underlying: Refused(), response: answer)
        let errors: [NALError] = [
            .unacceptableStatusCode(answer), .decoding(decoding),
            .tokenRefreshFailed(underlying: Refused(), response: answer),
        ]
        for error in errors {
            #expect(error.response?.statusCode == 401, "\(error)")
            #expect(error.response?.data == Data("denied".utf8), "\(error)")
        }
        #expect(NALError.tokenRefreshFailed(underlying: Refused(), response: nil).response == nil)
        #expect(NALError.cancelled.response == nil)
    }

    @Test("LogConfiguration.ParseError")
    func parseError() {
        do {
            _ = try LogConfiguration.parse("a=b=c")
            Issue.record("a bad entry was accepted")
        } catch {
            Self.expectSentence(error)
        }
    }
}
