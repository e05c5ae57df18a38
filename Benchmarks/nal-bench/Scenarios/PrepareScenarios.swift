import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The reference workload of the Core issue and its variants.
enum BenchAPI: RemoteService {
    case plain, query, queryList, queryPrebuilt, json, encodable, form

    static let base = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")

    var baseURL: URL { Self.base }
    var path: String { "search" }
    var method: HTTPMethod {
        switch self {
        case .plain, .query, .queryList, .queryPrebuilt: .get
        case .json, .encodable, .form: .post
        }
    }
    var requestType: RequestType {
        switch self {
        case .plain: .plain
        case .query: .parameters(BenchAPI.parameters, encoding: URLEncoding.default)
        case .queryList: .parameterList(BenchAPI.parameterList)
        case .queryPrebuilt: .parameters(BenchAPI.prebuiltParameters, encoding: URLEncoding.default)
        case .json: .parameters(BenchAPI.parameters, encoding: JSONEncoding.default)
        case .encodable: .jsonEncodable(TwentyFields())
        case .form: .formEncodable(SearchForm())
        }
    }

    /// The reference parameters as a list, built on every call as an endpoint's `switch` builds them.
    static var parameterList: ParameterList {
        [
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ]
    }

    /// The same parameters as a dictionary, built on every call.
    static var parameters: Parameters {
        [
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ]
    }

    /// The same dictionary built once, as an endpoint with constant parameters keeps it.
    static let prebuiltParameters = parameters
}

struct TwentyFields: Codable, Sendable {
    var id = 1, name = "NAL", owner = "swift-server", stars = 1234, forks = 56
    var language = "Swift", license = "Apache-2.0", archived = false, fork = false, size = 2048
    var description = "A network abstraction layer", homepage = "https://example.com", topics = ["http", "linux"]
    var openIssues = 12, watchers = 99, defaultBranch = "main", visibility = "public", score = 9.5
    var createdAt = "2026-01-01T00:00:00Z", updatedAt = "2026-11-21T00:00:00Z"
}

struct SearchForm: Encodable, Sendable {
    var q = "swift nio", page = 2, perPage = 50, sort = "stars", order = "desc", tags = ["server", "linux"]
}

/// Hand-written Foundation versions of the same jobs: what a careful developer writes without NAL, and no more. A
/// new `URLRequest` is already a GET, so none of them sets `httpMethod = "GET"` (about 290 ns on Linux).
enum FoundationBaseline {
    static let queryAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return set
    }()

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }

    static func pairs(_ key: String, _ value: Any, into pairs: inout [String]) {
        switch value {
        case let dictionary as [String: Any]:
            for (nested, inner) in dictionary.sorted(by: { $0.key < $1.key }) {
                Self.pairs("\(key)[\(nested)]", inner, into: &pairs)
            }
        case let array as [Any]:
            for element in array { Self.pairs("\(key)[]", element, into: &pairs) }
        default:
            pairs.append(escape(key) + "=" + escape("\(value)"))
        }
    }

    static var anyParameters: [String: Any] {
        [
            "q": "swift nio", "page": 2, "per_page": 50, "sort": "stars", "order": "desc",
            "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
        ]
    }

    static func queryRequest() -> URLRequest? {
        guard
            var components = URLComponents(
                url: BenchAPI.base.appendingPathComponent("search"), resolvingAgainstBaseURL: false)
        else { return nil }
        var pairs: [String] = []
        for (key, value) in anyParameters.sorted(by: { $0.key < $1.key }) { Self.pairs(key, value, into: &pairs) }
        components.percentEncodedQuery = pairs.joined(separator: "&")
        guard let url = components.url else { return nil }
        return URLRequest(url: url)
    }

    /// The typed version: `URLQueryItem`s for the same pairs (keys sorted and nested keys flattened by hand), set
    /// through `URLComponents.queryItems`.
    static func queryItemsRequest() -> URLRequest? {
        guard
            var components = URLComponents(
                url: BenchAPI.base.appendingPathComponent("search"), resolvingAgainstBaseURL: false)
        else { return nil }
        components.queryItems = [
            URLQueryItem(name: "filter[lang]", value: "swift"), URLQueryItem(name: "filter[min]", value: "10"),
            URLQueryItem(name: "order", value: "desc"), URLQueryItem(name: "page", value: String(2)),
            URLQueryItem(name: "per_page", value: String(50)), URLQueryItem(name: "q", value: "swift nio"),
            URLQueryItem(name: "sort", value: "stars"), URLQueryItem(name: "tags[]", value: "server"),
            URLQueryItem(name: "tags[]", value: "linux"),
        ]
        guard let url = components.url else { return nil }
        return URLRequest(url: url)
    }

    /// The floor: parsing the finished URL string and wrapping it in a request, which any approach pays.
    static let finishedQueryURL =
        "https://api.example.com/v1/search?filter%5Blang%5D=swift&filter%5Bmin%5D=10&order=desc&page=2&per_page=50"
        + "&q=swift%20nio&sort=stars&tags%5B%5D=server&tags%5B%5D=linux"

    static func floorRequest() -> URLRequest? {
        URL(string: finishedQueryURL).map { URLRequest(url: $0) }
    }

    /// The floor plus building the endpoint's parameters, which the reference workload does on every call: what any
    /// API that takes typed parameters pays before it writes a byte.
    static func floorWithParametersRequest() -> URLRequest? {
        blackHole(BenchAPI.parameters)
        return floorRequest()
    }

    /// The same with the parameters as a `ParameterList`.
    static func floorWithListRequest() -> URLRequest? {
        blackHole(BenchAPI.parameterList)
        return floorRequest()
    }

    static func jsonRequest() throws -> URLRequest {
        var request = URLRequest(url: BenchAPI.base.appendingPathComponent("search"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: anyParameters)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }

    static let encoder = JSONEncoder()

    static func encodableRequest() throws -> URLRequest {
        var request = URLRequest(url: BenchAPI.base.appendingPathComponent("search"))
        request.httpMethod = "POST"
        request.httpBody = try encoder.encode(TwentyFields())
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }

    static func plainRequest() -> URLRequest {
        URLRequest(url: BenchAPI.base.appendingPathComponent("search"))
    }
}

extension Benchmark {
    static let prepareScenarios: [Benchmark] = [
        Benchmark(
            "prepare.plain",
            measures: "An endpoint with no parameters prepared into a URLRequest: the fixed cost of every call.",
            comparedWith: ["baseline.prepare.plain"]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.plain.urlRequest()) }
        },
        .reference("baseline.prepare.plain", measures: "The same request built by hand with Foundation.") { n in
            for _ in 0..<n { blackHole(FoundationBaseline.plainRequest()) }
        },
        Benchmark(
            "prepare.query",
            measures:
                "A GET with seven query parameters (an array, a nested dictionary) in a Parameters dictionary built on every call, through URLEncoding.default: the reference workload of request preparation.",
            comparedWith: [
                "baseline.prepare.query", "reference.prepare.query.queryItems", "reference.prepare.query.floor",
                "reference.prepare.query.floorWithParameters",
            ]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.query.urlRequest()) }
        },
        .reference(
            "baseline.prepare.query",
            measures: "The same query built Alamofire-style from [String: Any] with URLComponents."
        ) { n in
            for _ in 0..<n { blackHole(FoundationBaseline.queryRequest()) }
        },
        .reference(
            "reference.prepare.query.queryItems", measures: "The same query from typed URLComponents.queryItems."
        ) { n in
            for _ in 0..<n { blackHole(FoundationBaseline.queryItemsRequest()) }
        },
        .reference(
            "reference.prepare.query.floor",
            measures: "Parsing the finished URL string into a request: the least any preparation can cost."
        ) { n in
            for _ in 0..<n { blackHole(FoundationBaseline.floorRequest()) }
        },
        .reference(
            "reference.prepare.query.floorWithParameters",
            measures: "The floor plus building the same Parameters, which the endpoint does on every call."
        ) { n in
            for _ in 0..<n { blackHole(FoundationBaseline.floorWithParametersRequest()) }
        },
        Benchmark(
            "prepare.query.list",
            measures: "prepare.query with the parameters in a ParameterList built on every call.",
            comparedWith: [
                "reference.prepare.query.floor", "reference.prepare.query.queryItems",
                "reference.prepare.query.floorWithList",
            ]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.queryList.urlRequest()) }
        },
        .reference(
            "reference.prepare.query.floorWithList",
            measures: "The floor plus building the same ParameterList, which the endpoint does on every call."
        ) { n in
            for _ in 0..<n { blackHole(FoundationBaseline.floorWithListRequest()) }
        },
        Benchmark(
            "prepare.query.prebuilt",
            measures: "prepare.query with a Parameters dictionary the endpoint built once (a static let).",
            comparedWith: ["reference.prepare.query.floor", "reference.prepare.query.queryItems"]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.queryPrebuilt.urlRequest()) }
        },
        Benchmark(
            "prepare.json",
            measures: "A POST whose parameters JSONEncoding writes with sorted keys: the cost of a JSON body.",
            comparedWith: ["baseline.prepare.json"]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.json.urlRequest()) }
        },
        .reference("baseline.prepare.json", measures: "The same JSON body from JSONSerialization, by hand.") { n in
            for _ in 0..<n { blackHole(try FoundationBaseline.jsonRequest()) }
        },
        Benchmark(
            "prepare.encodable", measures: "A POST with an Encodable JSON body (sorted keys).",
            comparedWith: ["baseline.prepare.encodable"]
        ) { n in
            for _ in 0..<n { blackHole(try BenchAPI.encodable.urlRequest()) }
        },
        .reference("baseline.prepare.encodable", measures: "The same body from JSONEncoder, keys unsorted.") { n in
            for _ in 0..<n { blackHole(try FoundationBaseline.encodableRequest()) }
        },
        Benchmark("prepare.form", measures: "A POST with an Encodable form body (URLEncodedFormEncoder).") { n in
            for _ in 0..<n { blackHole(try BenchAPI.form.urlRequest()) }
        },
    ]
}
