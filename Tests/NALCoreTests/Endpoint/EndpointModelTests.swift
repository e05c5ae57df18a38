import Foundation
import NALCore
import Testing

@Suite("Endpoint model")
struct EndpointModelTests {
    @Test("HTTPMethod statics, custom methods and literals")
    func methods() {
        #expect(HTTPMethod.patch.rawValue == "PATCH")
        #expect(HTTPMethod(rawValue: "PROPFIND") == "PROPFIND")
        #expect(HTTPMethod(rawValue: "get") != .get)
        #expect(Set<HTTPMethod>([.get, "GET", .post]).count == 2)
        #expect("\(HTTPMethod.delete)" == "DELETE")
    }

    @Test("RequestValidation accepts exactly its codes")
    func validation() {
        #expect(RequestValidation.none.accepts(statusCode: 500))
        #expect(RequestValidation.none.accepts(statusCode: 302))
        #expect(RequestValidation.successCodes.accepts(statusCode: 200))
        #expect(RequestValidation.successCodes.accepts(statusCode: 299))
        #expect(!RequestValidation.successCodes.accepts(statusCode: 300))
        #expect(!RequestValidation.successCodes.accepts(statusCode: 199))
        #expect(RequestValidation.successAndRedirectCodes.accepts(statusCode: 399))
        #expect(!RequestValidation.successAndRedirectCodes.accepts(statusCode: 400))
        #expect(RequestValidation.customCodes([418]).accepts(statusCode: 418))
        #expect(!RequestValidation.customCodes([418]).accepts(statusCode: 200))
    }

    @Test("protocol defaults")
    func defaults() {
        struct Minimal: RemoteService {
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "x" }
            var method: HTTPMethod { .get }
            var requestType: RequestType { .plain }
        }
        #expect(Minimal().headers == nil)
        #expect(Minimal().validation == .successCodes)
        #expect(Minimal().testData.isEmpty)
        #expect(Minimal().timeout == nil)
        #expect(Minimal().cachePolicy == nil)
    }

    @Test("ParameterValue literals")
    func literals() {
        let value: ParameterValue = ["s": "x", "i": 1, "d": 1.5, "b": true, "a": [1, nil], "n": nil]
        #expect(
            value
                == .dictionary([
                    "s": .string("x"), "i": .int(1), "d": .double(1.5), "b": .bool(true),
                    "a": .array([.int(1), .null]), "n": .null,
                ]))
    }
}
