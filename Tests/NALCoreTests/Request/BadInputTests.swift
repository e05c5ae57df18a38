import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every bad input named in the Core issue gets a typed `NALError`, never a crash.
@Suite("Bad input")
struct BadInputTests {
    @Test("a base URL without a scheme")
    func baseWithoutScheme() throws {
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: "api.example.com/v1")), path: "x")
        #expect(
            invalidRequestReason { try endpoint.urlRequest() } == .baseURLMissingScheme(baseURL: "api.example.com/v1"))
    }

    @Test("a base URL without a host")
    func baseWithoutHost() throws {
        for base in ["file:///tmp/x", "https:///v1", "mailto:someone"] {
            let endpoint = TestEndpoint(baseURL: try #require(URL(string: base)), path: "x")
            #expect(invalidRequestReason { try endpoint.urlRequest() } == .baseURLMissingHost(baseURL: base))
        }
    }

    @Test(
        "a path that makes no valid URL",
        arguments: [
            ("a\r\nHost: evil", "contains the control character 0x0D at byte offset 1"),
            ("a\0b", "contains the control character 0x00 at byte offset 1"),
            ("a\u{7F}b", "contains the control character 0x7F at byte offset 1"),
            ("bad%zz", "has a '%' at byte offset 3 that does not start a %XX escape"),
            ("trailing%2", "has a '%' at byte offset 8 that does not start a %XX escape"),
        ]
    )
    func invalidPath(path: String, problem: String) {
        let reason = invalidRequestReason { try TestEndpoint(path: path).urlRequest() }
        #expect(reason == .invalidPath(path: path, problem: problem))
    }

    @Test("header names and values with CR, LF or NUL", arguments: ["\r", "\n", "\0", "\r\n"])
    func headerSmuggling(bad: String) {
        let value = TestEndpoint(headers: ["X-Token": "abc\(bad)Injected: 1"])
        guard case .invalidHeaderValue(let name, _)? = invalidRequestReason({ try value.urlRequest() }) else {
            Issue.record("a header value with \(bad.debugDescription) was accepted")
            return
        }
        #expect(name == "X-Token")

        let nameWithBreak = "X-A\(bad)B"
        let named = TestEndpoint(headers: [nameWithBreak: "v"])
        #expect(invalidRequestReason { try named.urlRequest() } == .invalidHeaderName(nameWithBreak))
    }

    @Test("the secret in a rejected header is not repeated in the message")
    func headerMessageHidesValue() {
        let endpoint = TestEndpoint(headers: ["Authorization": "Bearer s3cr3t\r\nX: y"])
        do {
            _ = try endpoint.urlRequest()
            Issue.record("accepted")
        } catch {
            let message = "\(error)"
            #expect(!message.contains("s3cr3t"))
            #expect(message.contains("Authorization"))
            #expect(message.contains("CR (0x0D) at byte offset 13"))
        }
    }

    @Test("header names that are not tokens", arguments: ["", "Bad Name", "X:Y", "Ünicode"])
    func headerNames(name: String) {
        #expect(
            invalidRequestReason { try TestEndpoint(headers: [name: "v"]).urlRequest() } == .invalidHeaderName(name))
    }

    @Test(
        "a header whose name only starts or ends like a framing header's is the caller's own and is sent",
        arguments: ["Upgrade-Insecure-Requests", "Hosts", "Content-Length-Hint", "X-Host", "Connectio"])
    func namesNearFramingHeaders(name: String) throws {
        let request = try TestEndpoint(headers: [name: "1"]).urlRequest()
        #expect(request.value(forHTTPHeaderField: name) == "1")
        var validated = URLRequest(url: try #require(URL(string: "https://api.example.com")))
        try validated.setValidatedHeader("1", forName: name)
        #expect(validated.value(forHTTPHeaderField: name) == "1")
    }

    @Test("methods that are not tokens", arguments: ["", "GET /admin", "GET\r\n"])
    func methods(method: String) {
        let endpoint = TestEndpoint(method: HTTPMethod(rawValue: method))
        #expect(invalidRequestReason { try endpoint.urlRequest() } == .invalidMethod(method))
    }

    @Test("NaN or infinity in a query and in JSON")
    func nonFinite() {
        let query = TestEndpoint(requestType: .parameters(["f": ["min": .double(.nan)]], encoding: URLEncoding.default))
        guard case .nonFiniteNumber("f[min]")? = encodingFailure({ try query.urlRequest() }) else {
            Issue.record("NaN in a query was accepted")
            return
        }
        let json = TestEndpoint(
            method: .post, requestType: .parameters(["x": .double(.infinity)], encoding: JSONEncoding.default))
        guard case .nonFiniteNumber("x")? = encodingFailure({ try json.urlRequest() }) else {
            Issue.record("infinity in JSON was accepted")
            return
        }
        struct Point: Encodable, Sendable { var y = [1.0, .nan] }
        let encodable = TestEndpoint(method: .post, requestType: .jsonEncodable(Point()))
        guard case .nonFiniteNumber("y[1]")? = encodingFailure({ try encodable.urlRequest() }) else {
            Issue.record("NaN in an Encodable body was accepted")
            return
        }
    }

    @Test("an empty parameter key")
    func emptyKey() {
        let endpoint = TestEndpoint(requestType: .parameters(["": "x"], encoding: URLEncoding.default))
        guard case .emptyKey("")? = encodingFailure({ try endpoint.urlRequest() }) else {
            Issue.record("an empty key was accepted")
            return
        }
    }

    @Test("an Encodable that throws")
    func throwingEncodable() {
        struct Broken: Encodable, Sendable {
            struct Nope: Error {}
            func encode(to encoder: any Encoder) throws { throw Nope() }
        }
        for requestType in [
            RequestType.jsonEncodable(Broken()), .encodableQuery(Broken()), .formEncodable(Broken()),
        ] {
            guard
                case .encodableFailed("Broken", let underlying)? = encodingFailure({
                    try TestEndpoint(method: .post, requestType: requestType).urlRequest()
                })
            else {
                Issue.record("the throwing Encodable was accepted")
                continue
            }
            #expect(underlying is Broken.Nope)
        }
    }

    @Test("error descriptions are sentences that name the problem")
    func descriptions() {
        #expect(
            NALError.invalidRequest(.baseURLMissingHost(baseURL: "https:///v1")).description
                == "Invalid request: the base URL 'https:///v1' has no host; write it as 'https://host/...'.")
        #expect(
            NALError.invalidRequest(
                .invalidPath(path: "a\nb", problem: "contains the control character 0x0A at byte offset 1")
            ).description
                == "Invalid request: the path 'a\\nb' contains the control character 0x0A at byte offset 1.")
        #expect(
            NALError.invalidRequest(.invalidMethod("GET\u{7F}\r")).description
                == "Invalid request: the HTTP method 'GET\\u{7F}\\r' is empty or contains a character outside RFC 9110 "
                + "token characters.")
    }
}
