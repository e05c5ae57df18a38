import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("SensitiveData: one list of secrets for output and redirects")
struct SensitiveDataTests {
    let list = SensitiveData()

    @Test(
        "header names are sensitive when they contain a listed word, in any case",
        arguments: [
            ("Authorization", true), ("proxy-authorization", true), ("Cookie", true), ("Set-Cookie", true),
            ("X-API-Key", true), ("Api-Key", true), ("X-Session-Token", true), ("X-CSRF-Token", true),
            ("X-Signature", true), ("X-Amz-Credential", true), ("Content-Type", false), ("Accept", false),
            ("User-Agent", false), ("X-Request-ID", false),
        ])
    func headers(name: String, sensitive: Bool) {
        #expect(list.isSensitiveHeader(name) == sensitive)
    }

    @Test(
        "query keys and body fields are judged by their last named component",
        arguments: [
            ("password", true), ("user[password]", true), ("user[profile][passwd]", true), ("access_token[]", true),
            ("tokens[0]", true), ("client_secret", true), ("user.secret", true), ("filter[lang]", false),
            ("page", false), ("password_hint[length]", false), ("q", false),
        ])
    func keys(key: String, sensitive: Bool) {
        #expect(list.isSensitiveQueryKey(key) == sensitive)
        #expect(list.isSensitiveBodyField(key) == sensitive)
    }

    @Test("a list can be extended with words and exact names, per kind")
    func extended() {
        var extended = SensitiveData(headerNames: ["X-Tenant"], queryKeys: ["sig_v2"], bodyFields: ["pin"])
        extended.words.insert("otp")
        #expect(extended.isSensitiveHeader("x-tenant"))
        #expect(!list.isSensitiveHeader("X-Tenant"))
        #expect(extended.isSensitiveQueryKey("SIG_V2"))
        #expect(extended.isSensitiveBodyField("pin"))
        #expect(!extended.isSensitiveQueryKey("pin"), "bodyFields names body fields only")
        #expect(extended.isSensitiveBodyField("user[otp_code]"))
        #expect(!list.isSensitiveBodyField("user[otp_code]"))
    }

    @Test("URLs: the password of the user information and sensitive query and fragment values are redacted")
    func urls() {
        #expect(
            list.redacting(url: "https://ada:hunter2@api.example.com:8443/v1?token=t0k&page=2#access_token=frag")
                == "https://ada:<redacted>@api.example.com:8443/v1?token=<redacted>&page=2#access_token=<redacted>")
        #expect(list.redacting(url: "https://ada@host/x") == "https://ada@host/x")
        #expect(
            list.redacting(url: "https://host/x?user%5Bpassword%5D=p&ok=1")
                == "https://host/x?user%5Bpassword%5D=<redacted>&ok=1")
        #expect(list.redacting(url: "https://host/path:with:colons@at") == "https://host/path:with:colons@at")
    }

    @Test("JSON bodies: every sensitive field at any depth, arrays included, the rest byte for byte")
    func json() throws {
        let body = Data(
            (#"{ "user" : {"name":"ada","password":"p1","keys":[{"api_key":"k1"},{"api_key":{"nested":[1,2]}}]}, "#
                + #""token": 42, "note": "a \"quoted\" password", "sessionId": null, "ok": true}"#).utf8)
        let redacted = try #require(list.redacting(json: body))
        #expect(
            redacted
                == #"{ "user" : {"name":"ada","password":"<redacted>","keys":[{"api_key":"<redacted>"},"#
                + #"{"api_key":"<redacted>"}]}, "token": "<redacted>", "note": "a \"quoted\" password", "#
                + #""sessionId": "<redacted>", "ok": true}"#)
        #expect(list.redacting(json: Data("[1,2,{\"secret\":\"s\"}]".utf8)) == #"[1,2,{"secret":"<redacted>"}]"#)
        #expect(list.redacting(json: Data(#"{"a":"\"password\""}"#.utf8)) == #"{"a":"\"password\""}"#)
    }

    @Test(
        "malformed JSON gives nil, never half-redacted text",
        arguments: [
            #"{"password": "#, #"{"password": "unterminated}"#, #"{"a":1]"#, "", "   ", #"{"a" 1}"#, "[[[",
        ])
    func malformedJSON(text: String) {
        #expect(list.redacting(json: Data(text.utf8)) == nil)
    }

    @Test("JSON nested 30,000 deep does not overflow the stack")
    func deepJSON() {
        let deep = String(repeating: #"{"a":"#, count: 30_000) + "1" + String(repeating: "}", count: 30_000)
        #expect(list.redacting(json: Data(deep.utf8))?.count == deep.utf8.count)
    }

    @Test("cURL output hides JSON bodies that do not parse; binary bodies are not printed")
    func curlBodies() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"password": "hunter2""#.utf8)
        let shown = request.curlCommand()
        #expect(!shown.contains("hunter2"))
        #expect(shown.hasSuffix("--data-binary @- # 22 bytes of JSON that does not parse, not shown"))
        #expect(request.curlCommand(revealingSecrets: true).contains("hunter2"))
    }

    @Test("NAL's debug logs never show the password of a base URL, nor secret query values")
    func debugLogs() async throws {
        let endpoint = TestEndpoint(
            baseURL: try #require(URL(string: "https://ada:hunter2@api.example.com/v1")), path: "items",
            requestType: .parameters(["api_key": "k-77", "page": 1], encoding: URLEncoding.default))
        try await LogCapture.capture("dev.nal=debug,*=off") { sink in
            _ = try await Client<TestEndpoint>(transport: MemoryTransport()).request(endpoint)
            let lines = sink.entries(subsystem: "dev.nal", containing: "api.example.com/v1/items")
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(!line.message.contains("hunter2"))
                #expect(!line.message.contains("k-77"))
                #expect(line.message.contains("ada:<redacted>@api.example.com"))
            }
        }
    }

    @Test("a rendered URL is cut to about 2 KB with an ellipsis that says how much was left out")
    func longURLsAreCapped() throws {
        let path = String(repeating: "a", count: 1_000_000)
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: "https://api.example.com")), path: path)
        let request = try endpoint.urlRequest()
        let response = try MemoryTransport.response(to: request, status: 500)
        let message = "\(NALError.unacceptableStatusCode(response))"
        #expect(message.utf8.count < 2300)
        #expect(message.contains("aaa… (997976 more bytes); the endpoint"))
        let pathError = NALError.invalidRequest(.invalidPath(path: path + "%", problem: "x"))
        #expect("\(pathError)".utf8.count < 2300)
    }
}
