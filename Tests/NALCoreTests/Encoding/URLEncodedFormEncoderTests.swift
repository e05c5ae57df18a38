import Foundation
import NALCore
import Testing

@Suite("URLEncodedFormEncoder")
struct URLEncodedFormEncoderTests {
    struct Search: Encodable {
        var query = "swift nio"
        var page = 2
        var tags = ["server", "linux"]
        var exact = true
        var filter = Filter()
        var cursor: String? = nil

        struct Filter: Encodable {
            var lang = "swift"
            var minStars: UInt8 = 10
        }
    }

    @Test("structs encode like URLEncoding parameters, nil optionals left out")
    func basic() throws {
        #expect(
            try URLEncodedFormEncoder().encode(Search())
                == "exact=1&filter%5Blang%5D=swift&filter%5BminStars%5D=10&page=2&query=swift%20nio"
                + "&tags%5B%5D=server&tags%5B%5D=linux")
    }

    @Test("array, bool, space and key options")
    func options() throws {
        let encoder = URLEncodedFormEncoder(
            arrayEncoding: .indexInBrackets, boolEncoding: .literal, keyEncoding: .convertToSnakeCase,
            spaceEncoding: .plusReplaced)
        #expect(
            try encoder.encode(Search())
                == "exact=true&filter%5Blang%5D=swift&filter%5Bmin_stars%5D=10&page=2&query=swift+nio"
                + "&tags%5B0%5D=server&tags%5B1%5D=linux")
    }

    @Test("with plusReplaced, a space in a key becomes + too, at the top level and nested")
    func spaceInKeys() throws {
        let encoder = URLEncodedFormEncoder(spaceEncoding: .plusReplaced)
        #expect(try encoder.encode(["a b": "c d"]) == "a+b=c+d")
        #expect(try encoder.encode(["a b": ["e f": "c d"]]) == "a+b%5Be+f%5D=c+d")
    }

    @Test(
        "key encodings",
        arguments: [
            (URLEncodedFormEncoder.KeyEncoding.useDefaultKeys, "myURLValue2x"),
            (.convertToSnakeCase, "my_url_value2x"),
            (.convertToKebabCase, "my-url-value2x"),
            (.capitalized, "MyURLValue2x"),
            (.uppercased, "MYURLVALUE2X"),
            (.lowercased, "myurlvalue2x"),
            (.custom { "x_" + $0 }, "x_myURLValue2x"),
        ]
    )
    func keyEncodings(keyEncoding: URLEncodedFormEncoder.KeyEncoding, expected: String) throws {
        struct Value: Encodable { var myURLValue2x = 1 }
        #expect(try URLEncodedFormEncoder(keyEncoding: keyEncoding).encode(Value()) == "\(expected)=1")
    }

    @Test("snake case keeps leading and trailing underscores and splits acronyms")
    func snakeCaseEdges() throws {
        struct Value: Encodable {
            var _privateThing = 1
            var userID = 2
            var HTTPServer = 3
            var simple = 4
        }
        #expect(
            try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(Value())
                == "_private_thing=1&http_server=3&simple=4&user_id=2")
    }

    @Test("date encodings")
    func dates() throws {
        struct Value: Encodable { var at = Date(timeIntervalSince1970: 1_700_000_000.5) }
        func encoded(_ strategy: URLEncodedFormEncoder.DateEncoding) throws -> String {
            try URLEncodedFormEncoder(dateEncoding: strategy).encode(Value())
        }
        #expect(try encoded(.deferredToDate) == "at=\(1_700_000_000.5 - 978_307_200)")
        #expect(try encoded(.secondsSince1970) == "at=1700000000.5")
        #expect(try encoded(.millisecondsSince1970) == "at=1700000000500.0")
        #expect(try encoded(.iso8601) == "at=2023-11-14T22%3A13%3A20Z")
        #expect(try encoded(.custom { _ in "today" }) == "at=today")
    }

    @Test("data encodings")
    func data() throws {
        struct Value: Encodable { var blob = Data([0xFB, 0xFF, 0x01]) }
        #expect(try URLEncodedFormEncoder().encode(Value()) == "blob=%2B/8B")
        #expect(
            try URLEncodedFormEncoder(dataEncoding: .deferredToData).encode(Value())
                == "blob%5B%5D=251&blob%5B%5D=255&blob%5B%5D=1")
        #expect(try URLEncodedFormEncoder(dataEncoding: .custom { "\($0.count)" }).encode(Value()) == "blob=3")
    }

    @Test("numbers: floats keep their short form, large unsigned values survive")
    func numbers() throws {
        struct Value: Encodable {
            var f: Float = 0.1
            var u = UInt64.max
            var d = 2.5
            var i8: Int8 = -8
        }
        #expect(try URLEncodedFormEncoder().encode(Value()) == "d=2.5&f=0.1&i8=-8&u=18446744073709551615")
    }

    @Test("a Decimal is its plain number, and a nil inside an array keeps its place as null, sent empty")
    func decimalsAndNilElements() throws {
        struct Value: Encodable {
            var price = Decimal(string: "12.50")
            var tags: [String?] = ["a", nil, "b"]
        }
        #expect(
            try URLEncodedFormEncoder().encode(Value())
                == "price=12.5&tags%5B%5D=a&tags%5B%5D=&tags%5B%5D=b")
        // Other encodings of the tree (JSON) tell null from an empty object; encodeNil() of an unkeyed container too.
        #expect(try URLEncodedFormEncoder().parameters(from: Value())["tags"] == ["a", nil, "b"])
        struct Row: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode("a")
                try container.encodeNil()
                try container.encode("b")
            }
        }
        struct Table: Encodable { var row = Row() }
        #expect(try URLEncodedFormEncoder().parameters(from: Table())["row"] == ["a", nil, "b"])
        #expect(try URLEncodedFormEncoder().encode(Table()) == "row%5B%5D=a&row%5B%5D=&row%5B%5D=b")
    }

    @Test("a Float NaN or infinity is refused with its key path, like a Double's", arguments: [Float.nan, -.infinity])
    func nonFiniteFloat(value: Float) {
        struct Value: Encodable { var inner: [Float] }
        guard
            case .nonFiniteNumber(let path)? = encodingFailure({
                try URLEncodedFormEncoder().encode(Value(inner: [1, value]))
            })
        else { Issue.record("\(value) was accepted"); return }
        #expect(path == "inner[1]")
    }

    @Test("dictionaries, URLs and explicit nil")
    func dictionariesAndNil() throws {
        struct Value: Encodable {
            var map = ["b": 2, "a": 1]
            var link = URL(string: "https://x.org/a?b=c")!
            var missing: Int? = nil
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(map, forKey: .map)
                try container.encode(link, forKey: .link)
                try container.encodeNil(forKey: .missing)
            }
            enum CodingKeys: String, CodingKey { case map, link, missing }
        }
        #expect(
            try URLEncodedFormEncoder().encode(Value())
                == "link=https%3A//x.org/a?b%3Dc&map%5Ba%5D=1&map%5Bb%5D=2&missing=")
    }

    @Test("bad input is a typed error")
    func badInput() throws {
        struct NaNValue: Encodable { var inner = ["x": [Double.nan]] }
        guard case .nonFiniteNumber(let path)? = encodingFailure({ try URLEncodedFormEncoder().encode(NaNValue()) })
        else { Issue.record("NaN was accepted"); return }
        #expect(path == "inner[x][0]")

        guard case .topLevelNotKeyed(let type)? = encodingFailure({ try URLEncodedFormEncoder().encode([1, 2]) })
        else { Issue.record("a top-level array was accepted"); return }
        #expect(type == "Array<Int>")

        struct Failing: Encodable {
            struct Refused: Error {}
            func encode(to encoder: any Encoder) throws { throw Refused() }
        }
        guard
            case .encodableFailed(let failedType, let underlying)? = encodingFailure({
                try URLEncodedFormEncoder().encode(Failing())
            })
        else { Issue.record("a throwing Encodable was accepted"); return }
        #expect(failedType == "Failing")
        #expect(underlying is Failing.Refused)
    }

    @Test("parameters(from:) exposes the tree for other encodings")
    func parametersFrom() throws {
        let parameters = try URLEncodedFormEncoder().parameters(from: Search())
        #expect(parameters["page"] == 2)
        #expect(parameters["filter"] == ["lang": "swift", "minStars": 10])
        #expect(parameters["cursor"] == nil)
    }
}
