import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLEncoding")
struct URLEncodingTests {
    private func query(_ parameters: Parameters, _ encoding: URLEncoding = .default) throws -> String {
        try encoding.queryString(parameters)
    }

    @Test("the reference workload matches Alamofire byte for byte")
    func referenceWorkload() throws {
        let expected =
            "filter%5Blang%5D=swift&filter%5Bmin%5D=10&order=desc&page=2&per_page=50&q=swift%20nio&sort=stars"
            + "&tags%5B%5D=server&tags%5B%5D=linux"
        #expect(try query(referenceParameters) == expected)
        let oracle = AlamofireReference.query([
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ])
        #expect(expected == oracle)
    }

    /// Every printable ASCII character, one row each: RFC 3986 unreserved characters plus `/` and `?` stay.
    @Test(
        "escaping of each printable ASCII character",
        arguments: (0x20...0x7E).map { UInt8($0) }
    )
    func printableASCII(byte: UInt8) throws {
        let character = String(UnicodeScalar(byte))
        let stays = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?".utf8.contains(byte)
        let expected = stays ? character : String(format: "%%%02X", byte)
        #expect(try query(["k": .string(character)]) == "k=\(expected)")
        #expect(expected == AlamofireReference.escape(character))
    }

    @Test(
        "escaping table",
        arguments: [
            ("swift nio", "swift%20nio"),
            ("a+b", "a%2Bb"),
            ("a&b=c", "a%26b%3Dc"),
            ("path/to?x", "path/to?x"),
            (":#[]@", "%3A%23%5B%5D%40"),
            ("!$&'()*+,;=", "%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
            ("100%", "100%25"),
            ("café", "caf%C3%A9"),
            ("Zürich", "Z%C3%BCrich"),
            ("日本語", "%E6%97%A5%E6%9C%AC%E8%AA%9E"),
            ("🚀", "%F0%9F%9A%80"),
            ("👩‍💻", "%F0%9F%91%A9%E2%80%8D%F0%9F%92%BB"),
            ("tab\tnew\nline", "tab%09new%0Aline"),
            ("", ""),
        ]
    )
    func escapingTable(input: String, escaped: String) throws {
        #expect(try query(["k": .string(input)]) == "k=\(escaped)")
        #expect(escaped == AlamofireReference.escape(input))
    }

    /// An endpoint holds its encoding as `any ParameterEncoding`: past 24 bytes, every `requestType` read boxes it.
    @Test("URLEncoding fits an existential's inline buffer")
    func fitsInline() {
        #expect(MemoryLayout<URLEncoding>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test("keys are escaped like values, brackets included")
    func keyEscaping() throws {
        #expect(try query(["a b": 1, "ü": 2, "x[y]": 3]) == "a%20b=1&x%5By%5D=3&%C3%BC=2")
    }

    @Test("keys are sorted at every level")
    func sortedKeys() throws {
        let parameters: Parameters = ["b": ["z": 1, "a": 2, "m": ["y": 1, "b": 2]], "a": 0]
        #expect(try query(parameters) == "a=0&b%5Ba%5D=2&b%5Bm%5D%5Bb%5D=2&b%5Bm%5D%5By%5D=1&b%5Bz%5D=1")
    }

    @Test("array encodings")
    func arrayEncodings() throws {
        let parameters: Parameters = ["ids": [1, 2]]
        #expect(try query(parameters) == "ids%5B%5D=1&ids%5B%5D=2")
        #expect(try query(parameters, URLEncoding(arrayEncoding: .noBrackets)) == "ids=1&ids=2")
        #expect(try query(parameters, URLEncoding(arrayEncoding: .indexInBrackets)) == "ids%5B0%5D=1&ids%5B1%5D=2")
        let custom = URLEncoding(arrayEncoding: .custom { key, index in "\(key).\(index + 1)" })
        #expect(try query(parameters, custom) == "ids.1=1&ids.2=2")
    }

    @Test("a custom array key sees the unescaped nested key")
    func customArrayKeyInsideDictionary() throws {
        let custom = URLEncoding(arrayEncoding: .custom { key, index in "\(key)(\(index))" })
        let parameters: Parameters = ["f": ["a b": ["x", "y"]], "z": 1]
        #expect(try query(parameters, custom) == "f%5Ba%20b%5D%280%29=x&f%5Ba%20b%5D%281%29=y&z=1")
    }

    @Test("nested arrays and dictionaries")
    func nesting() throws {
        let parameters: Parameters = [
            "matrix": [[1, 2], [3]],
            "people": [["name": "Ada", "langs": ["en", "fr"]], ["name": "Grace"]],
            "empty": [], "none": [:],
        ]
        let expected =
            "matrix%5B%5D%5B%5D=1&matrix%5B%5D%5B%5D=2&matrix%5B%5D%5B%5D=3"
            + "&people%5B%5D%5Blangs%5D%5B%5D=en&people%5B%5D%5Blangs%5D%5B%5D=fr&people%5B%5D%5Bname%5D=Ada"
            + "&people%5B%5D%5Bname%5D=Grace"
        #expect(try query(parameters) == expected)
        let indexed = try query(parameters, URLEncoding(arrayEncoding: .indexInBrackets))
        #expect(indexed.hasPrefix("matrix%5B0%5D%5B0%5D=1&matrix%5B0%5D%5B1%5D=2&matrix%5B1%5D%5B0%5D=3"))
        #expect(indexed.hasSuffix("people%5B1%5D%5Bname%5D=Grace"))
    }

    @Test("bool encodings, numbers and null")
    func scalars() throws {
        let parameters: Parameters = ["t": true, "f": false, "i": -42, "d": 1.5, "big": 1e20, "n": nil, "one": 1.0]
        #expect(try query(parameters) == "big=1e%2B20&d=1.5&f=0&i=-42&n=&one=1.0&t=1")
        #expect(try query(["t": true, "f": false], URLEncoding(boolEncoding: .literal)) == "f=false&t=true")
        #expect(try query(["min": .int(Int.min)]) == "min=-9223372036854775808")
    }

    @Test("matches the Alamofire oracle on mixed inputs")
    func oracleAgreement() throws {
        let values: [(ParameterValue, Any)] = [
            ("plain", "plain"), ("sp ace", "sp ace"), ("ümlaut & co", "ümlaut & co"), (7, 7), (-3, -3),
            (true, true), (false, false), (0.25, 0.25), ("a/b?c#d", "a/b?c#d"), ("🚀=1", "🚀=1"),
        ]
        for (offset, (value, reference)) in values.enumerated() {
            let nested: Parameters = ["k\(offset)": value, "arr": [value, value], "dict": ["x y": value]]
            let oracle: [String: Any] = [
                "k\(offset)": reference, "arr": [reference, reference], "dict": ["x y": reference],
            ]
            #expect(try query(nested) == AlamofireReference.query(oracle))
        }
    }

    @Test("destinations follow the method")
    func destinations() throws {
        let url = URL(string: "https://api.example.com/items")!
        for method in [HTTPMethod.get, .head, .delete] {
            var request = URLRequest(url: url)
            request.httpMethod = method.rawValue
            let encoded = try URLEncoding.default.encode(request, with: ["a": 1])
            #expect(encoded.url?.absoluteString == "https://api.example.com/items?a=1")
            #expect(encoded.httpBody == nil)
        }
        for method in [HTTPMethod.post, .put, .patch, .options, "PROPFIND"] {
            var request = URLRequest(url: url)
            request.httpMethod = method.rawValue
            let encoded = try URLEncoding.default.encode(request, with: ["a": 1])
            #expect(encoded.url == url)
            #expect(encoded.bodyString == "a=1")
            #expect(
                encoded.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        }
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        #expect(try URLEncoding.queryString.encode(post, with: ["a": 1]).url?.query == "a=1")
        #expect(try URLEncoding.httpBody.encode(URLRequest(url: url), with: ["a": 1]).bodyString == "a=1")
    }

    @Test("an existing query is kept and appended to; a fragment stays last")
    func existingQuery() throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/items?token=abc&x=1#top")!)
        let encoded = try URLEncoding.queryString.encode(request, with: ["page": 2])
        #expect(encoded.url?.absoluteString == "https://api.example.com/items?token=abc&x=1&page=2#top")
        #expect(try URLEncoding.queryString.encode(request, with: [:]).url == request.url)
    }

    @Test("an existing Content-Type wins, in any letter case")
    func contentTypePrecedence() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/items")!)
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "content-type")
        let encoded = try URLEncoding.default.encode(request, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(encoded.bodyString == "a=1")
    }

    @Test("NaN, infinity and empty keys are typed errors with their key path")
    func badInput() throws {
        guard case .nonFiniteNumber(let path)? = encodingFailure({ try query(["f": ["x": [1.0, .double(.nan)]]]) })
        else { Issue.record("NaN was accepted"); return }
        #expect(path == "f[x][1]")
        guard case .nonFiniteNumber(let top)? = encodingFailure({ try query(["inf": .double(.infinity)]) })
        else { Issue.record("infinity was accepted"); return }
        #expect(top == "inf")
        guard case .emptyKey(let root)? = encodingFailure({ try query(["": 1]) }) else {
            Issue.record("an empty top-level key was accepted")
            return
        }
        #expect(root.isEmpty)
        guard case .emptyKey(let nested)? = encodingFailure({ try query(["a": ["b": ["": 1]]]) }) else {
            Issue.record("an empty nested key was accepted")
            return
        }
        #expect(nested == "a[b]")
        let emptyCustomKey = URLEncoding(arrayEncoding: .custom { _, _ in "" })
        guard case .emptyKey(let element)? = encodingFailure({ try emptyCustomKey.queryString(["a": [1]]) }) else {
            Issue.record("an empty custom array key was accepted")
            return
        }
        #expect(element == "a[0]", "the path names the element whose key is empty")
        #expect(
            "\(NALError.encoding(.emptyKey(keyPath: "a[b]")))"
                == "Encoding failed: the container at 'a[b]' has an empty key.")
    }
    @Test("keys and values of every length from 1 to 40 bytes escape as Alamofire escapes them")
    func everyLength() throws {
        // Runs of 1 to 16 bytes are copied as words and longer ones by memcpy: every length, made of letters,
        // escaped bytes and non-ASCII text. (Key order across the sort integer's cases is ParameterListTests' job.)
        let pieces = ["a", "Z", "0", "-", ".", "~", "/", "?", " ", "&", "=", "[", "%", "+", "\u{E9}", "\u{1F680}"]
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        for length in 1...40 {
            for _ in 0..<10 {
                var key = "", value = ""
                while key.utf8.count < length { key += pieces.randomElement(using: &generator) ?? "a" }
                while value.utf8.count < length { value += pieces.randomElement(using: &generator) ?? "a" }
                let other = "m" + key
                let expected = [(key, value), (other, "1")].sorted { $0.0 < $1.0 }
                    .map { "\(AlamofireReference.escape($0.0))=\(AlamofireReference.escape($0.1))" }
                    .joined(separator: "&")
                #expect(
                    try query([key: .string(value), other: "1"]) == expected,
                    "seed \(seed), key \(key.debugDescription), value \(value.debugDescription)")
            }
        }
    }
}
