import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Response: Foundation's HTTPURLResponse made from a transport's head on first access, as it would be at once")
struct LazyHTTPResponseTests {
    static let url = URL(fileURLWithPath: "/").appendingPathComponent("user")
    static let fields: [(name: String, value: String)] = [
        ("content-type", "application/json; charset=UTF-8"), ("Vary", "accept"), ("vary", "origin"),
        ("X-Request-ID", "a1"), ("Content-Length", "42"), ("set-cookie", "a=1"), ("www-authenticate", "Basic"),
    ]

    static func lazy(_ fields: [(name: String, value: String)] = fields, status: Int = 200) throws -> LazyHTTPResponse {
        try #require(LazyHTTPResponse(ResponseHead(url: url, statusCode: status, version: "HTTP/2", fields: fields)))
    }

    @Test("the object made later is the one Foundation makes of the joined fields")
    func sameAsEager() throws {
        let lazy = try Self.lazy()
        let eager = try #require(
            HTTPURLResponse(
                url: Self.url, statusCode: 200, httpVersion: "HTTP/2",
                headerFields: [
                    "content-type": "application/json; charset=UTF-8", "Vary": "accept, origin",
                    "X-Request-ID": "a1", "Content-Length": "42", "set-cookie": "a=1", "www-authenticate": "Basic",
                ]))
        let response = lazy.response
        #expect(response.statusCode == 200)
        #expect(response.url == Self.url)
        #expect(response.mimeType == eager.mimeType)
        #expect(response.textEncodingName == eager.textEncodingName)
        #expect(response.expectedContentLength == 42)
        #expect(HTTPHeaders(response) == HTTPHeaders(eager))
        #expect(lazy.headers == HTTPHeaders(eager))
        #expect(lazy.headers.fields.map(\.name) == HTTPHeaders(eager).fields.map(\.name))
    }

    @Test(
        "a Content-Disposition of a megabyte costs time in proportion: Foundation gets its type and name, headers all",
        arguments: [true, false])
    func hugeDisposition(nameFirst: Bool) throws {
        // Foundation reads a file name out of it as it makes the object, in quadratic time: 200 KB took 1.1 s in a
        // release build, so a megabyte would take half a minute. The name may come after the padding.
        let padding = "x=\"" + String(repeating: "[", count: 1 << 20) + "\""
        let name = "filename*=UTF-8''r%C3%A9sum%C3%A9 1.txt"
        let value = "attachment; " + (nameFirst ? "\(name); \(padding)" : "\(padding); \(name)")
        let lazy = try Self.lazy([("Content-Disposition", value), ("Content-Length", "3")])
        let clock = ContinuousClock()
        let start = clock.now
        let response = lazy.response
        #expect(clock.now - start < Timing.bound(.milliseconds(500)))
        let given = try #require(response.value(forHTTPHeaderField: "Content-Disposition"))
        #expect(given == "attachment; filename=\"résumé 1.txt\"")
        #expect(response.suggestedFilename == "résumé 1.txt")
        #expect(response.expectedContentLength == 3)
        // Nothing of the value is lost to the caller.
        #expect(lazy.headers["Content-Disposition"] == value)
        #expect(lazy.value(forField: "content-disposition") == value)
        #expect(LazyHTTPResponse.shortened(disposition: "inline; " + padding) == "inline")
    }

    @Test("a field read from the head has the value the object gives, in any letter case, repeats joined")
    func fieldValuesAsTheObjectGives() throws {
        let lazy = try Self.lazy()
        for name in ["Vary", "VARY", "content-type", "Content-Length", "x-request-id", "Set-Cookie", "Missing"] {
            #expect(lazy.value(forField: name) == lazy.response.value(forHTTPHeaderField: name), "\(name)")
        }
        #expect(try Self.lazy().value(forField: "vary") == "accept, origin")
        #expect(try Self.lazy().value(forField: "Missing") == nil)
    }

    @Test("a single-valued field sent twice with one value reads once, in any letter case, as the object gives it")
    func repeatedSingleValuedField() throws {
        let lazy = try Self.lazy([("content-length", "6"), ("Content-Length", "6"), ("vary", "a"), ("Vary", "a")])
        for name in ["Content-Length", "content-length", "CONTENT-LENGTH"] {
            #expect(lazy.value(forField: name) == "6", "\(name)")
        }
        #expect(lazy.response.value(forHTTPHeaderField: "Content-Length") == "6")
        // Vary may list values: repeated, they are joined even when equal.
        #expect(lazy.value(forField: "Vary") == "a, a")
    }

    @Test("the status and field reads do not make the object; the first read of it does, once, for every copy")
    func madeOnceOnDemand() throws {
        let lazy = try Self.lazy(status: 404)
        let response = Response(
            request: URLRequest(url: Self.url), head: lazy, data: Data("x".utf8),
            timing: ResponseTiming(start: Date(), duration: .zero))
        #expect(response.statusCode == 404)
        #expect(lazy.value(forField: "Content-Length") == "42")
        #expect(!lazy.isMade)
        let copy = response.replacingBody(with: Data())
        let first = copy.httpResponse
        #expect(lazy.isMade)
        #expect(first === response.httpResponse)
        #expect(first.statusCode == 404)
        #expect(response.headers["VARY"] == "accept, origin")
    }

    @Test("a response made by someone else is kept as it is")
    func readyMadeKept() throws {
        let made = try #require(
            HTTPURLResponse(url: Self.url, statusCode: 201, httpVersion: nil, headerFields: ["ETag": "\"v1\""]))
        let response = Response(
            request: URLRequest(url: Self.url), httpResponse: made, data: Data(),
            timing: ResponseTiming(start: Date(), duration: .zero))
        #expect(response.httpResponse === made)
        #expect(response.statusCode == 201)
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(LazyHTTPResponse(made).value(forField: "etag") == "\"v1\"")
    }
}
