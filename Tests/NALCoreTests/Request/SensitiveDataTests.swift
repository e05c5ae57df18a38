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
        "query keys and body fields are judged by each named component: password[new] holds a password",
        arguments: [
            ("password", true), ("user[password]", true), ("user[profile][passwd]", true), ("access_token[]", true),
            ("tokens[0]", true), ("client_secret", true), ("user.secret", true), ("filter[lang]", false),
            ("page", false), ("password[new]", true), ("user[password][value]", true), ("q", false),
        ])
    func keys(key: String, sensitive: Bool) {
        #expect(list.isSensitiveQueryKey(key) == sensitive)
        #expect(list.isSensitiveBodyField(key) == sensitive)
    }

    @Test("a list can be extended with words and exact names, per kind")
    func extended() {
        var extended = SensitiveData(headerNames: ["X-Tenant"], queryKeys: ["sig_v2"], bodyFields: ["pin"])
        extended.words.insert("passcode")
        #expect(extended.isSensitiveHeader("x-tenant"))
        #expect(!list.isSensitiveHeader("X-Tenant"))
        #expect(extended.isSensitiveQueryKey("SIG_V2"))
        #expect(extended.isSensitiveBodyField("pin"))
        #expect(!extended.isSensitiveQueryKey("pin"), "bodyFields names body fields only")
        #expect(extended.isSensitiveBodyField("user[new_passcode]"))
        #expect(!list.isSensitiveBodyField("user[new_passcode]"))
    }

    @Test("URLs: the password of the user information and sensitive query and fragment values are redacted")
    func urls() {
        #expect(
            list.redacting(url: "https://ada:hunter2@api.example.com:8443/v1?token=t0k&page=2#access_token=frag")
                == "https://ada:<redacted>@api.example.com:8443/v1?token=<redacted>&page=2#access_token=<redacted>")
        #expect(list.redacting(url: "https://ghp_abc123@github.com/x") == "https://<redacted>@github.com/x")
        #expect(list.redacting(url: "https://ada@host/x") == "https://<redacted>@host/x", "a lone user name is a token")
        #expect(
            list.redacting(url: "https://host/x?user%5Bpassword%5D=p&ok=1")
                == "https://host/x?user%5Bpassword%5D=<redacted>&ok=1")
        #expect(list.redacting(url: "https://host/path:with:colons@at") == "https://host/path:with:colons@at")
    }

    @Test("URLs inside free text, as libcurl and Foundation quote them in messages, are redacted; the rest is kept")
    func urlsInText() {
        #expect(
            list.redacting(urlsIn: "Unsupported proxy scheme for 'gopher://user:s3cretPW@127.0.0.1:1' (7)")
                == "Unsupported proxy scheme for 'gopher://user:<redacted>@127.0.0.1:1' (7)")
        #expect(
            list.redacting(urlsIn: "Unsupported proxy syntax in 'http://user:s3cretPW@[::1': bad")
                == "Unsupported proxy syntax in 'http://user:<redacted>@[::1': bad")
        // A quote inside the password does not end the URL, and two URLs are both redacted.
        #expect(
            list.redacting(urlsIn: "from http://a:pw'1@h/x?token=t to https://b:pw2@h2/.")
                == "from http://a:<redacted>@h/x?token=<redacted> to https://b:<redacted>@h2/.")
        #expect(list.redacting(urlsIn: "no URL here: a:b@c") == "no URL here: a:b@c")
        #expect(
            list.redacting(urlsIn: "Could not resolve proxy: proxy.example") == "Could not resolve proxy: proxy.example"
        )
        #expect(list.redacting(urlsIn: "://user:pw@host") == "://user:<redacted>@host")
        // Many separators: one pass over the text, not one per URL.
        let many = String(repeating: "a://b ", count: 200_000)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(list.redacting(urlsIn: many) == many)
        #expect(clock.now - start < Timing.bound(.seconds(5)), "redaction is not linear in the text")
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

    @Test("JSON of every shape is redacted: arrays before a secret, brackets in strings, 1E5, documents over lines")
    func jsonShapes() {
        #expect(
            list.redacting(json: Data(#"{"list":[1,2,3],"tags":["a","b"],"password":"P1"}"#.utf8))
                == #"{"list":[1,2,3],"tags":["a","b"],"password":"<redacted>"}"#)
        #expect(
            list.redacting(json: Data(#"{"token":{"a":"}]","b":["]{"]},"next":1}"#.utf8))
                == #"{"token":"<redacted>","next":1}"#)
        #expect(
            list.redacting(json: Data(#"{"n":1E5,"m":-2.5E-3,"secret":"S"}"#.utf8))
                == #"{"n":1E5,"m":-2.5E-3,"secret":"<redacted>"}"#)
        // A pretty-printed document inside a string is written back as a string: its line breaks stay escaped.
        #expect(
            list.redacting(json: Data(#"{"data": "{\n  \"password\": \"P2\"\n}"}"#.utf8))
                == #"{"data": "{\u000a  \"password\": \"<redacted>\"\u000a}"}"#)
    }

    @Test("a JSON document or form fields inside a JSON string, as a server echoes a request, are redacted too")
    func jsonInsideStrings() throws {
        // httpbin's /anything echoes an untyped body in "data", and a form in "form" (already by field).
        let echo =
            #"{"data": "{\"user\":\"ada\",\"password\":\"hunter2\"}", "raw": "user=ada&token=t0k","#
            + #" "deeper": "{\"inner\": \"{\\\"secret\\\": \\\"s3\\\"}\"}", "plain": "{not json"}"#
        let redacted = try #require(list.redacting(json: Data(echo.utf8)))
        for secret in ["hunter2", "t0k", "s3"] { #expect(!redacted.contains(secret), "\(secret) leaked: \(redacted)") }
        // Still JSON, with the inner document still JSON, and what is not secret kept.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(redacted.utf8)) as? [String: String])
        let data = try #require(object["data"])
        #expect(
            try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: String]
                == ["user": "ada", "password": "<redacted>"])
        #expect(object["raw"] == "user=ada&token=<redacted>")
        #expect(object["plain"] == "{not json")
        // A body parsed as a form becomes a key of httpbin's "form" (FoundationNetworking sends untyped bodies so).
        let asKey = try #require(list.redacting(json: Data(#"{"form": {"{\"password\":\"hunter2\"}": ""}}"#.utf8)))
        #expect(!asKey.contains("hunter2") && asKey.contains("<redacted>"), "\(asKey)")
        // Nothing to redact inside: the string is kept byte for byte.
        let harmless = #"{"data": "{\"user\": \"ada\"}"}"#
        #expect(list.redacting(json: Data(harmless.utf8)) == harmless)
    }

    @Test(
        "bodies that are not JSON or a form, or JSON that does not parse, keep no secret: as sent, and as echoed",
        arguments: [
            (#"{"password":"SEC1","n":NaN}"#, nil), (#"{"password":"SEC1","a":[1,"#, "text/plain"),
            (#"{password: 'SEC1', user: "ada"}"#, nil), (#"{"a":1} and then token=SEC1 and more"#, "text/plain"),
            ("\u{FEFF}{\"password\":\"SEC1\"}", "text/plain"), ("password[new]=SEC1&user=ada", nil),
            ("user[password][value]=SEC1", "application/x-www-form-urlencoded"),
            ("payload=%7B%22password%22%3A%22SEC1%22%7D&x=1", "application/x-www-form-urlencoded"),
            ("log line: password = SEC1; next", "text/plain"),
            ("GET /x HTTP/1.1\r\nAuthorization: Bearer SEC1\r\nHost: a", "text/plain"),
            ("Cookie: theme=dark; session=SEC1\nnext line", nil),
        ] as [(String, String?)])
    func textBodies(body: String, contentType: String?) throws {
        let sent = list.redacting(body: Data(body.utf8), contentType: contentType)
        guard case .text(let shown) = sent else {
            Issue.record("\(body) was not shown as text: \(sent)")
            return
        }
        #expect(!shown.contains("SEC1") && shown.contains("redacted"), "\(shown)")
        // httpbin echoes it in a JSON string ("data"), or as a key of "form".
        let echoed = try JSONSerialization.data(withJSONObject: ["data": body, "form": [body: ""]])
        let echo = try #require(list.redacting(json: echoed))
        #expect(!echo.contains("SEC1"), "\(echo)")
    }

    @Test("documents inside strings nested past the depth redaction reads still keep no secret")
    func deeplyNested() throws {
        var document: Any = ["password": "SEC2", "user": "ada"]
        for _ in 0..<12 {
            let inner = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            document = ["data": inner]
        }
        let redacted = try #require(list.redacting(json: try JSONSerialization.data(withJSONObject: document)))
        #expect(!redacted.contains("SEC2"), "\(redacted)")
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

    @Test("every error that names a URL redacts its password and secret query values")
    func errorURLsAreRedacted() throws {
        struct Refused: Error {}
        let url = try #require(URL(string: "https://ada:hunter2@api.example.com/v1/items?api_key=k-77&page=2"))
        let response = try MemoryTransport.response(to: URLRequest(url: url), status: 401)
        let errors: [NALError] = [
            .responseTooLarge(limit: 10, url: url),
            .decoding(DecodingFailure(type: "Item", keyPath: "id", underlying: Refused(), response: response)),
            .unacceptableStatusCode(response),
            .tokenRefreshFailed(underlying: Refused(), response: response),
            .timedOut(TimeoutFailure(limit: .total, seconds: 2, url: url)),
        ]
        for error in errors {
            let message = error.description
            #expect(!message.contains("hunter2") && !message.contains("k-77"), "\(message)")
            #expect(message.contains("ada:<redacted>@api.example.com/v1/items?api_key=<redacted>&page=2"), "\(message)")
        }
    }

    @Test(
        "a transport's URLError and TLS failure lose their secrets: failing URL, URL string, message, wrapped errors")
    func transportErrorsAreRedacted() throws {
        let url = try #require(URL(string: "https://ada:hunter2@api.example.com/v1?api_key=k-77&page=2"))
        let text = url.absoluteString
        let wrappedNSError = NSError(
            domain: "kCFErrorDomainCFNetwork", code: -1004, userInfo: [NSURLErrorFailingURLStringErrorKey: text])
        let wrappedURLError = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url])
        let transport = NALError.transport(
            URLError(
                .cannotConnectToHost,
                userInfo: [
                    NSURLErrorFailingURLErrorKey: url, NSURLErrorFailingURLStringErrorKey: text,
                    NSLocalizedDescriptionKey: "could not connect to \(text)", NSUnderlyingErrorKey: wrappedNSError,
                ]))
        guard case .transport(let redacted) = transport.redactingURLs() else {
            Issue.record("the transport error changed its kind")
            return
        }
        let redactedURL = "https://ada:%3Credacted%3E@api.example.com/v1?api_key=%3Credacted%3E&page=2"
        let shownURL = "https://ada:<redacted>@api.example.com/v1?api_key=<redacted>&page=2"
        #expect(redacted.code == .cannotConnectToHost)
        #expect(redacted.failingURL?.absoluteString == redactedURL)
        #expect(redacted.userInfo[NSURLErrorFailingURLStringErrorKey] as? String == shownURL)
        #expect(redacted.userInfo[NSLocalizedDescriptionKey] as? String == "could not connect to " + shownURL)
        let underlying = try #require(redacted.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == "kCFErrorDomainCFNetwork" && underlying.code == -1004)
        #expect(underlying.userInfo[NSURLErrorFailingURLStringErrorKey] as? String == shownURL)

        let nested = SensitiveData.current.redacting(
            error: URLError(.networkConnectionLost, userInfo: [NSUnderlyingErrorKey: wrappedURLError]))
        let nestedURL = (nested.userInfo[NSUnderlyingErrorKey] as? URLError)?.failingURL
        #expect(nestedURL?.absoluteString == redactedURL)

        let mismatch = TLSFailure(check: .hostnameMismatch, url: url, detail: "no name matches \(text)")
        let tls = NALError.tls(mismatch).redactingURLs()
        guard case .tls(let failure) = tls else {
            Issue.record("the TLS error changed its kind")
            return
        }
        #expect(failure.check == .hostnameMismatch)
        #expect(failure.url?.absoluteString == redactedURL)
        #expect(failure.detail == "no name matches " + shownURL)
    }
}

@Suite("SensitiveData: names read as words, values shown safely")
struct SensitiveWordsTests {
    let list = SensitiveData()

    @Test(
        "a name is sensitive when a listed word ends one of its words, not when it merely contains one",
        arguments: [
            ("auth_token", true), ("X-Auth-Token", true), ("X-Api-Key", true), ("apiKey", true), ("api_keys", true),
            ("accessToken", true), ("csrftoken", true), ("JSESSIONID", true), ("PHPSESSID", true), ("password", true),
            ("user[passwords]", true), ("oauth", true), ("Authorization", true), ("client_secret", true),
            ("author", false), ("authority", false), ("authorId", false), ("authors", false), ("tokenizer", false),
            ("secretary", false), ("keyboard", false), ("hint[length]", false), ("cookieless", false),
        ])
    func words(name: String, sensitive: Bool) {
        #expect(list.isSensitiveBodyField(name) == sensitive, "\(name)")
        #expect(list.isSensitiveQueryKey(name) == sensitive, "\(name)")
    }

    @Test("only Authorization-style headers keep their scheme, and only a known one")
    func schemes() {
        #expect(list.displayValue("Bearer abc", forHeader: "Authorization") == "Bearer <redacted>")
        #expect(list.displayValue("Basic Zm9v", forHeader: "proxy-authorization") == "Basic <redacted>")
        #expect(list.displayValue("S1 trailing", forHeader: "X-Auth-Token") == "<redacted>")
        #expect(
            list.displayValue("Bearer abc", forHeader: "X-Api-Key") == "<redacted>", "a scheme only where it is one")
        #expect(list.displayValue("S1 trailing", forHeader: "Authorization") == "<redacted>", "not a known scheme")
        #expect(list.displayValue("sid=1; theme=dark", forHeader: "Cookie") == "<redacted>")
    }

    @Test("Location and Content-Location show their URL with its secrets redacted")
    func locations() {
        #expect(
            list.displayValue("https://app/cb#access_token=X1&state=s", forHeader: "Location")
                == "https://app/cb#access_token=<redacted>&state=s")
        #expect(list.displayValue("/x?token=t&a=1", forHeader: "content-location") == "/x?token=<redacted>&a=1")
    }

    @Test("JSON keys are compared as JSON reads them: escapes, surrogate pairs and all")
    func escapedKeys() {
        #expect(list.redacting(json: Data(#"{"pass\u0077ord":"X1"}"#.utf8)) == #"{"pass\u0077ord":"<redacted>"}"#)
        #expect(
            list.redacting(json: Data(#"{"\u0074oken":1,"a\ud83d\ude00":2}"#.utf8))
                == #"{"\u0074oken":"<redacted>","a\ud83d\ude00":2}"#)
        #expect(list.redacting(json: Data(#"{"x\ud800":"kept"}"#.utf8)) == #"{"x\ud800":"kept"}"#)
    }

    @Test("semicolon-separated query parameters are redacted too")
    func semicolons() {
        #expect(list.redacting(url: "https://h/x?a=1;token=X2;b=2") == "https://h/x?a=1;token=<redacted>;b=2")
    }

    @Test("user names: alone or token-like they are redacted; with a password, a plain name stays")
    func userNames() {
        #expect(list.redacting(url: "https://ghp_0123456789abcdef@github.com/r") == "https://<redacted>@github.com/r")
        #expect(list.redacting(url: "https://ada:pw@host/") == "https://ada:<redacted>@host/")
        #expect(
            list.redacting(url: "https://x-access-token0123456789abc:pw@host/")
                == "https://<redacted>:<redacted>@host/")
    }

    @Test(
        "untyped and text/plain bodies are redacted as JSON or form when they are, and other text by its pairs",
        arguments: [nil, "text/plain", "application/octet-stream"] as [String?])
    func sniffedBodies(type: String?) {
        #expect(
            list.redacting(body: Data("password=D1&a=2".utf8), contentType: type) == .text("password=<redacted>&a=2"))
        #expect(
            list.redacting(body: Data(#"{"token":"T1"}"#.utf8), contentType: type) == .text(#"{"token":"<redacted>"}"#))
        #expect(
            list.redacting(body: Data("just words, token=T1".utf8), contentType: type)
                == .text("just words, token=<redacted>"))
        #expect(
            list.redacting(body: Data("just words, with no secret in them".utf8), contentType: type)
                == .text("just words, with no secret in them"))
        // Read as JSON, not as text: a key spelt with an escape is still the key it names.
        #expect(
            list.redacting(body: Data(#"{"pass\u0077ord":"P1"}"#.utf8), contentType: type)
                == .text(#"{"pass\u0077ord":"<redacted>"}"#))
    }

    @Test("cURL output of an untyped form body hides the password")
    func curlUntypedForm() throws {
        let endpoint = TestEndpoint(path: "login", method: .post, requestType: .data(Data("password=D1".utf8)))
        let shown = try endpoint.curlCommand()
        #expect(!shown.contains("D1"))
        #expect(shown.contains("password=<redacted>"))
    }

    @Test("multipart bodies: a sensitive part is the marker, JSON and form parts are redacted, files show their size")
    func multipart() throws {
        let body =
            Data(
                ("preamble\r\n--B\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n"
                    + "--B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n"
                    + "--B\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
                    + #"{"api_key":"K9","n":1}"# + "\r\n"
                    + "--B\r\nContent-Disposition: form-data; name=\"a;b\"; filename=\"f.bin\"\r\n\r\n").utf8)
            + Data([0xFF, 0xFE, 0x00, 0x01]) + Data("\r\n--B--\r\nepilogue".utf8)
        guard case .text(let shown) = list.redacting(body: body, contentType: "multipart/form-data; boundary=B") else {
            Issue.record("not shown as text")
            return
        }
        #expect(!shown.contains("hunter2") && !shown.contains("K9"))
        #expect(shown.contains("name=\"password\"\r\n\r\n<redacted>\r\n--B"))
        #expect(shown.contains(#"{"api_key":"<redacted>","n":1}"#))
        #expect(shown.contains("\r\n\r\nada\r\n--B"), "other parts are kept")
        #expect(shown.contains("<4 bytes, not shown>"))
        #expect(shown.hasPrefix("preamble\r\n--B\r\n") && shown.hasSuffix("\r\n--B--\r\nepilogue"))
        // A nested multipart/mixed part, LF line breaks, a body cut before its closing delimiter.
        let nested = Data(
            ("--O\nContent-Disposition: form-data; name=\"files\"\nContent-Type: multipart/mixed; boundary=I\n\n"
                + "--I\nContent-Disposition: attachment; name=\"secret\"\n\nS3cr3t\n--I--\n"
                + "--O\nContent-Disposition: form-data; name=\"token\"\n\nT0k3n").utf8)
        guard case .text(let inner) = list.redacting(body: nested, contentType: "multipart/form-data; boundary=\"O\"")
        else {
            Issue.record("not shown as text")
            return
        }
        #expect(!inner.contains("S3cr3t") && !inner.contains("T0k3n"), "\(inner)")
        #expect(inner.hasSuffix("name=\"token\"\n\n<redacted>"))
        // Bytes that are not multipart under that boundary fall back to the other rules.
        #expect(
            list.redacting(body: Data("password=x".utf8), contentType: "multipart/form-data; boundary=Q")
                == .text("password=<redacted>"))
    }

    @Test("a multipart part's name is read as a server reads it: the first name parameter, backslash escapes resolved")
    func multipartPartNames() throws {
        let body = Data(
            ("--B\r\nContent-Disposition: form-data; name=\"password\"; NAME=\"note\"\r\n\r\nFIRST-NAME-1\r\n"
                + "--B\r\nContent-Disposition: form-data; name=\"pass\\word\"\r\n\r\nESCAPED-2\r\n"
                + "--B\r\nContent-Disposition: form-data; name=\"say \\\"hi\\\"\"\r\n\r\nkept\r\n--B--\r\n").utf8)
        guard case .text(let shown) = list.redacting(body: body, contentType: "multipart/form-data; boundary=B") else {
            Issue.record("not shown as text")
            return
        }
        #expect(!shown.contains("FIRST-NAME-1") && !shown.contains("ESCAPED-2"), "\(shown)")
        #expect(shown.contains("name=\"password\"; NAME=\"note\"\r\n\r\n<redacted>\r\n--B"), "\(shown)")
        #expect(shown.contains("name=\"pass\\word\"\r\n\r\n<redacted>\r\n--B"), "\(shown)")
        #expect(shown.contains("\r\n\r\nkept\r\n--B--"), "a quoted name with escaped quotes is read whole")
        #expect(
            MultipartReader.parameters(#"form-data; name="pass\word"; filename="a\"b.txt"; Name="other""#)
                == ["name": "password", "filename": #"a"b.txt"#])
    }

    @Test("a URL inside a JSON string or a form value is redacted as a URL; Link and Refresh targets too")
    func embeddedURLs() {
        let json = Data(#"{"url":"https://h/cb?access_token=AT1&x=1","path":"/p?sig=S1","note":"a://b"}"#.utf8)
        #expect(
            list.redacting(json: json)
                == #"{"url":"https://h/cb?access_token=<redacted>&x=1","path":"/p?sig=<redacted>","note":"a://b"}"#)
        let form = "next=https%3A%2F%2Fh%2Fcb%3Ftoken%3DT2&page=2"
        let shown = list.redacting(formFields: form)
        #expect(!shown.contains("T2") && shown.hasSuffix("&page=2") && shown.hasPrefix("next=https%3A%2F%2Fh"))
        #expect(
            list.displayValue(#"<https://h/p?page=2&token=T3>; rel="next", </p?otp=T4>; rel="prev""#, forHeader: "Link")
                == #"<https://h/p?page=2&token=<redacted>>; rel="next", </p?otp=<redacted>>; rel="prev""#)
        #expect(
            list.displayValue("5; URL=https://h/p?session=T5", forHeader: "refresh")
                == "5; URL=https://h/p?session=<redacted>")
        #expect(
            list.displayValue("<https://h/p?page=2>; rel=next", forHeader: "Link") == "<https://h/p?page=2>; rel=next")
    }

    @Test(
        "presigned and one-time names: Azure's sig, otp, X-Amz-Signature",
        arguments: ["sig", "otp", "X-Amz-Signature", "totp"])
    func signatureWords(name: String) {
        #expect(list.isSensitiveQueryKey(name))
        #expect(!list.isSensitiveQueryKey("config") && !list.isSensitiveQueryKey("signal"))
    }
}
