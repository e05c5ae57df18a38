import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ParameterList and key order")
struct ParameterListTests {
    /// Keys where a byte-prefix shortcut could go wrong: shared eight-byte prefixes, prefixes of each other, NUL,
    /// upper before lower case, digits, non-ASCII text (composed and decomposed), and keys past eight bytes.
    static let awkwardKeys = [
        "per_page", "per_pag", "per_page_", "per_pageA", "per_pagea", "per_page\u{0}", "a", "A", "ab", "a\u{0}b",
        "Z", "z", "0", "9", "~", "_", "-", "é", "ä", "e\u{302}x", "zz", "abcdefgh", "abcdefghi", "abcdefgg",
        "abcdefgh\u{7F}", "ümlaut", "🚀", "a b", "a[b]", "x=y", "e\u{301}", "K", "\u{212A}", ";", "\u{37E}",
        // Non-ASCII only past the first four bytes, and past the first eight, composed and decomposed.
        "abcd\u{E9}", "abcde\u{301}", "abcdefge\u{301}", "abcdefg\u{E9}",
    ]

    @Test("keys sort as String's < sorts them, whatever their bytes")
    func keyOrderMatchesStringOrder() throws {
        // Seeded, so that a failure repeats; the seed differs by run and is in the failure's message.
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        for round in 0..<200 {
            let count =
                round < 100 ? Int.random(in: 2...16, using: &generator) : Int.random(in: 17...30, using: &generator)
            let keys = Array(Self.awkwardKeys.shuffled(using: &generator).prefix(count))
            // A list keeps every key, canonically equivalent ones too, stably; a dictionary keeps one of each.
            let listed = keys.enumerated().map { ($0.element, ParameterValue.int($0.offset)) }
            let listExpected = listed.sorted { $0.0 < $1.0 }.map {
                "\(AlamofireReference.escape($0.0))=\(Self.text($0.1))"
            }
            #expect(
                try URLEncoding.default.queryString(ParameterList(listed)) == listExpected.joined(separator: "&"),
                "seed \(seed)")
            var parameters = Parameters()
            for (index, key) in keys.enumerated() where parameters[key] == nil { parameters[key] = .int(index) }
            let expected = parameters.keys.sorted().map {
                "\(AlamofireReference.escape($0))=\(parameters[$0].map(Self.text) ?? "")"
            }
            #expect(try URLEncoding.default.queryString(parameters) == expected.joined(separator: "&"), "seed \(seed)")
            // The same keys one level down.
            let nested = try URLEncoding.default.queryString(["n": .dictionary(parameters)] as Parameters)
            let nestedExpected = parameters.keys.sorted().map {
                "n%5B\(AlamofireReference.escape($0))%5D=\(parameters[$0].map(Self.text) ?? "")"
            }
            #expect(nested == nestedExpected.joined(separator: "&"), "seed \(seed)")
        }
    }

    private static func text(_ value: ParameterValue) -> String {
        if case .int(let int) = value { return String(int) }
        return ""
    }

    @Test("a list writes what the same pairs in a dictionary write, nested values included")
    func listMatchesDictionary() throws {
        let list: ParameterList = [
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ]
        let dictionary: Parameters = [
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ]
        let expected =
            "filter%5Blang%5D=swift&filter%5Bmin%5D=10&order=desc&page=2&per_page=50&q=swift%20nio&sort=stars"
            + "&tags%5B%5D=server&tags%5B%5D=linux"
        #expect(try URLEncoding.default.queryString(list) == expected)
        #expect(try URLEncoding.default.queryString(dictionary) == expected)
        #expect(try URLEncoding.default.queryString(ParameterList(dictionary)) == expected)
        for encoding in [
            URLEncoding(arrayEncoding: .noBrackets), URLEncoding(arrayEncoding: .indexInBrackets),
            URLEncoding(boolEncoding: .literal),
            URLEncoding(arrayEncoding: .custom { key, index in "\(key).\(index)" }),
        ] {
            let mixed: ParameterList = ["b": [true, 1.5, nil], "a": ["x y": ["é", -3]]]
            let same: Parameters = ["b": [true, 1.5, nil], "a": ["x y": ["é", -3]]]
            #expect(try encoding.queryString(mixed) == encoding.queryString(same))
        }
    }

    @Test("a repeated key is written every time, in the list's order, between the keys around it")
    func repeatedKeys() throws {
        let list: ParameterList = ["tag": "b", "z": 1, "tag": "a", "a": 0, "tag": "c"]
        #expect(try URLEncoding.default.queryString(list) == "a=0&tag=b&tag=a&tag=c&z=1")
        var built = ParameterList()
        for index in 0..<20 { built.append(index.isMultiple(of: 2) ? "even" : "odd", .int(index)) }
        let evens = (0..<20).filter { $0.isMultiple(of: 2) }.map { "even=\($0)" }
        let odds = (0..<20).filter { !$0.isMultiple(of: 2) }.map { "odd=\($0)" }
        #expect(try URLEncoding.default.queryString(built) == (evens + odds).joined(separator: "&"))
        #expect(built.count == 20)
        #expect(built.pairs.first?.name == "even")
    }

    @Test("an endpoint's list goes to the query for GET and to a form body for POST; empty changes nothing")
    func endpointDestinations() throws {
        let get = TestEndpoint(path: "items", requestType: .parameterList(["b": 2, "a": "x y"]))
        #expect(try get.urlRequest().url?.absoluteString == "https://api.example.com/v1/items?a=x%20y&b=2")
        let post = TestEndpoint(path: "items", method: .post, requestType: .parameterList(["b": 2, "a": "x y"]))
        let request = try post.urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/v1/items")
        #expect(request.bodyString == "a=x%20y&b=2")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        let forced = TestEndpoint(
            path: "items", method: .post, requestType: .parameterList(["a": 1], encoding: .queryString))
        #expect(try forced.urlRequest().url?.absoluteString == "https://api.example.com/v1/items?a=1")
        let empty = TestEndpoint(path: "items", requestType: .parameterList([:]))
        #expect(try empty.urlRequest().url?.absoluteString == "https://api.example.com/v1/items")
    }

    @Test("values far longer than the buffer's first size, and every byte value, escape as Alamofire escapes them")
    func longValuesAndEveryByte() throws {
        let everyScalar = String(String.UnicodeScalarView((0..<256).compactMap { Unicode.Scalar(UInt32($0)) }))
        let long = String(repeating: everyScalar + "~ ü", count: 40)
        let parameters: Parameters = ["long": .string(long), "b": [.string(long)], "a": ["k": .string(everyScalar)]]
        let expected =
            "a%5Bk%5D=\(AlamofireReference.escape(everyScalar))&b%5B%5D=\(AlamofireReference.escape(long))"
            + "&long=\(AlamofireReference.escape(long))"
        #expect(try URLEncoding.default.queryString(parameters) == expected)
        #expect(try URLEncoding.default.queryString(ParameterList(parameters)) == expected)
        let request = try TestEndpoint(
            path: "items", requestType: .parameters(parameters, encoding: URLEncoding.default)
        ).urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/v1/items?" + expected)
        // One run of a mebibyte with nothing to escape: a single append far past the buffer's size.
        let run = String(repeating: "a", count: 1 << 20)
        #expect(try URLEncoding.default.queryString(["big": .string(run)]) == "big=" + run)
    }

    @Test("services with different base URLs, prepared at once from many tasks, each keep their own")
    func concurrentBaseURLs() async throws {
        let cases = [
            ("https://api.example.com/v1", "https://api.example.com/v1/items?z=1"),
            ("http://127.0.0.1:8080/a/b/?k=v#top", "http://127.0.0.1:8080/a/b/items?k=v&z=1#top"),
            ("https://x.example/?q=1", "https://x.example/items?q=1&z=1"),
        ]
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<2000 {
                        let (base, want) = cases[(task + round) % cases.count]
                        guard let url = URL(string: base) else { return 1 }
                        let endpoint = TestEndpoint(baseURL: url, path: "items", requestType: .parameterList(["z": 1]))
                        if (try? endpoint.urlRequest().url?.absoluteString) != want { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test("services with different base URLs, prepared in turn, each keep their own")
    func alternatingBaseURLs() throws {
        let bases = [
            "https://api.example.com/v1", "http://127.0.0.1:8080/a/b/?k=v#top", "https://x.example/?q=1",
            "https://user@host.example:99/deep/path/", "https://f.example/p#a?b", "https://q.example/p?a=1?b=2",
        ]
        let expected = [
            "https://api.example.com/v1/items?z=1", "http://127.0.0.1:8080/a/b/items?k=v&z=1#top",
            "https://x.example/items?q=1&z=1", "https://user@host.example:99/deep/path/items?z=1",
            "https://f.example/p/items?z=1#a?b", "https://q.example/p/items?a=1?b=2&z=1",
        ]
        for round in 0..<3 {
            for (base, want) in zip(bases, expected) {
                guard let url = URL(string: base) else { Issue.record("bad base \(base)"); return }
                let endpoint = TestEndpoint(baseURL: url, path: "items", requestType: .parameterList(["z": 1]))
                #expect(try endpoint.urlRequest().url?.absoluteString == want, "round \(round)")
            }
        }
    }

    @Test("bad values in a list are typed errors with their key path")
    func badInput() throws {
        guard
            case .nonFiniteNumber(let path)? = encodingFailure({
                try URLEncoding.default.queryString(["ok": 1, "f": ["x": [1.0, .double(.nan)]]] as ParameterList)
            })
        else { Issue.record("NaN was accepted"); return }
        #expect(path == "f[x][1]")
        guard
            case .emptyKey? = encodingFailure({ try URLEncoding.default.queryString(["": 1, "a": 2] as ParameterList) })
        else { Issue.record("an empty key was accepted"); return }
    }
}
