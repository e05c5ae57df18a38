import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("cURL rendering and redaction")
struct CurlCommandTests {
    @Test("GET without options, POST with headers and body")
    func shape() throws {
        #expect(try TestEndpoint(path: "zen").urlRequest().curlCommand() == "curl https://api.example.com/v1/zen")
        let endpoint = TestEndpoint(
            path: "items", method: .post, requestType: .parameters(["name": "it's"], encoding: JSONEncoding.default),
            headers: ["Accept": "text/plain"])
        #expect(
            try endpoint.urlRequest().curlCommand() == """
                curl -X POST https://api.example.com/v1/items \\
                  -H 'Accept: text/plain' \\
                  -H 'Content-Type: application/json' \\
                  --data-raw '{"name":"it'\\''s"}'
                """)
    }

    @Test("secrets are redacted by default and shown only on request")
    func redaction() throws {
        let endpoint = TestEndpoint(
            path: "login", method: .post,
            requestType: .compositeParameters(
                bodyParameters: ["user": "ada", "password": "hunter2"], bodyEncoding: URLEncoding.httpBody,
                urlParameters: ["access_token": "tok123", "page": 1]),
            headers: [
                "Authorization": "Bearer abc.def", "cookie": "sid=42", "X-API-Key": "k-9",
                "Proxy-Authorization": "Basic Zm9v",
            ])
        let request = try endpoint.urlRequest()
        let redacted = request.curlCommand()
        for secret in ["hunter2", "tok123", "abc.def", "sid=42", "k-9", "Zm9v"] {
            #expect(!redacted.contains(secret), "\(secret) leaked")
        }
        #expect(redacted.contains("'Authorization: Bearer <redacted>'"))
        #expect(redacted.contains("'Proxy-Authorization: Basic <redacted>'"))
        #expect(redacted.contains("'Cookie: <redacted>'"))
        #expect(redacted.contains("access_token=<redacted>&page=1"))
        #expect(redacted.contains("'password=<redacted>&user=ada'"))
        let revealed = request.curlCommand(revealingSecrets: true)
        for secret in ["hunter2", "tok123", "abc.def", "sid=42", "k-9", "Zm9v"] {
            #expect(revealed.contains(secret))
        }
    }

    @Test("an endpoint's own curlCommand redacts as the request's does, and reveals secrets only when asked")
    func endpointCurl() throws {
        let endpoint = TestEndpoint(path: "me", headers: ["Authorization": "Bearer abc.def"])
        #expect(
            try endpoint.curlCommand() == """
                curl https://api.example.com/v1/me \\
                  -H 'Authorization: Bearer <redacted>'
                """)
        #expect(try endpoint.curlCommand(revealingSecrets: true).contains("'Authorization: Bearer abc.def'"))
    }

    @Test("a URL with a character the shell reads (&, ;, $, parentheses, *, !) is quoted")
    func shellCharactersInURL() throws {
        for query in ["a=1&b=2", "a=1;b=2", "a=$HOME", "a=(1)", "a=*", "a=!1"] {
            let url = try #require(URL(string: "https://api.example.com/v1/items?\(query)"))
            #expect(URLRequest(url: url).curlCommand() == "curl 'https://api.example.com/v1/items?\(query)'")
        }
    }

    @Test("binary bodies are not printed")
    func binaryBody() throws {
        let request = try TestEndpoint(method: .put, requestType: .data(Data([0xFF, 0xFE, 0x00]))).urlRequest()
        #expect(request.curlCommand().hasSuffix("--data-binary @- # 3 bytes of binary data, not shown"))
    }
}
