import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("JSONEncoding")
struct JSONEncodingTests {
    private func json(_ parameters: Parameters, _ options: JSONEncoding.Options = .sortedKeys) throws -> String {
        String(decoding: try JSONEncoding(options: options).data(parameters), as: UTF8.self)
    }

    @Test("the reference workload round-trips through JSONSerialization")
    func referenceWorkload() throws {
        let data = try JSONEncoding.default.data(referenceParameters)
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(decoded["q"] as? String == "swift nio")
        #expect(decoded["page"] as? Int == 2)
        #expect(decoded["tags"] as? [String] == ["server", "linux"])
        #expect((decoded["filter"] as? [String: Any])?["min"] as? Int == 10)
        #expect(decoded.count == referenceParameters.count)
    }

    @Test("sorted compact output")
    func sortedCompact() throws {
        #expect(
            try json(referenceParameters)
                == #"{"filter":{"lang":"swift","min":10},"order":"desc","page":2,"per_page":50,"#
                + #""q":"swift nio","sort":"stars","tags":["server","linux"]}"#)
    }

    @Test("scalars: numbers, booleans, null, and slashes left alone")
    func scalars() throws {
        let parameters: Parameters = [
            "b": true, "d": 0.1, "e": 1e20, "i": -7, "n": nil, "s": "a/b", "z": [], "o": [:], "one": 1.0,
        ]
        #expect(
            try json(parameters) == #"{"b":true,"d":0.1,"e":1e+20,"i":-7,"n":null,"o":{},"one":1.0,"s":"a/b","z":[]}"#)
    }

    @Test("string escaping per RFC 8259")
    func stringEscaping() throws {
        let text = "q\"b\\s/\n\r\t\u{08}\u{0C}\u{01}\u{1F}é日🚀"
        #expect(try json(["k": .string(text)]) == #"{"k":"q\"b\\s/\n\r\t\b\f\u0001\u001fé日🚀"}"#)
        let data = try JSONEncoding.default.data(["k": .string(text)])
        let decoded = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(decoded?["k"] == text)
    }

    @Test("pretty printing")
    func pretty() throws {
        let expected = """
            {
              "a" : [
                1,
                {
                  "b" : null
                }
              ],
              "c" : {},
              "d" : []
            }
            """
        #expect(try json(["a": [1, ["b": nil]], "c": [:], "d": []], [.prettyPrinted, .sortedKeys]) == expected)
        let unsorted = try JSONEncoding.prettyPrinted.data(["x": 1])
        #expect(String(decoding: unsorted, as: UTF8.self) == "{\n  \"x\" : 1\n}")
    }

    @Test("sets application/json unless a Content-Type is set")
    func contentType() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com")!)
        request.httpMethod = "POST"
        #expect(
            try JSONEncoding.default.encode(request, with: [:]).value(forHTTPHeaderField: "Content-Type")
                == "application/json")
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let encoded = try JSONEncoding.default.encode(request, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(encoded.bodyString == #"{"a":1}"#)
    }

    @Test("NaN, infinity and empty keys are typed errors with their key path")
    func badInput() throws {
        guard case .nonFiniteNumber(let path)? = encodingFailure({ try json(["a": [["b": .double(-.infinity)]]]) })
        else { Issue.record("infinity was accepted"); return }
        #expect(path == "a[0][b]")
        guard case .emptyKey(let keyPath)? = encodingFailure({ try json(["a": ["": 1]]) }) else {
            Issue.record("an empty key was accepted")
            return
        }
        #expect(keyPath == "a")
    }
}
