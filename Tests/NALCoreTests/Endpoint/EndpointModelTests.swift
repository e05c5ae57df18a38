import Foundation
import NALCore
import Testing

@Suite("Endpoint model")
struct EndpointModelTests {
    @Test("HTTPMethod statics, custom methods and literals; standard methods in any case become upper case")
    func methods() {
        #expect(HTTPMethod.patch.rawValue == "PATCH")
        #expect(HTTPMethod(rawValue: "PROPFIND") == "PROPFIND")
        for (written, standard) in [
            ("get", HTTPMethod.get), ("Post", .post), ("put", .put), ("patch", .patch), ("dElEtE", .delete),
            ("head", .head), ("options", .options), ("trace", .trace), ("connect", .connect),
        ] {
            #expect(HTTPMethod(rawValue: written) == standard)
            #expect(HTTPMethod(rawValue: written).rawValue == standard.rawValue.uppercased())
        }
        #expect(HTTPMethod(rawValue: "propfind").rawValue == "propfind", "extension methods are sent as written")
        #expect(HTTPMethod(rawValue: "patchy").rawValue == "patchy")
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
