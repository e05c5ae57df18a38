import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The raw-socket fault server that `scripts/test.sh` starts (`scripts/fault_server.py`) and announces in
/// `NAL_FAULT_URL`.
enum FaultServer {
    static let url: URL? = ProcessInfo.processInfo.environment["NAL_FAULT_URL"].flatMap(URL.init(string:))

    static let skipReason: Comment = "NAL_FAULT_URL is not set: run scripts/test.sh to start the fault server"

    /// The same server under the name `localhost`: another origin.
    static var otherOrigin: String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.host = "localhost"
        return components.string ?? ""
    }

    /// An endpoint on the fault server. `probe` tags the request in the server's journal.
    static func endpoint(
        _ path: String, method: HTTPMethod = .get, query: Parameters = [:], probe: String? = nil,
        requestType: RequestType? = nil, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes,
        timeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil
    ) -> TestEndpoint {
        var query = query
        if let probe { query["probe"] = .string(probe) }
        let type: RequestType =
            requestType ?? (query.isEmpty ? .plain : .parameters(query, encoding: URLEncoding.queryString))
        return TestEndpoint(
            baseURL: url ?? URL(fileURLWithPath: "/"), path: path, method: method, requestType: type, headers: headers,
            validation: validation, timeout: timeout, totalTimeout: totalTimeout)
    }

    /// What `/echo` answers: the request as the server parsed it off the wire.
    struct Echo: Decodable {
        var method: String
        var path: String
        var target: String
        var query: [String: [String]]
        var headers: [[String]]
        var body: String
        var bodyLength: Int

        /// The value of the first header named `name`, in any letter case.
        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    struct JournalEntry: Decodable {
        var method: String
        var target: String
        var bodyLength: Int
    }

    /// The requests the server parsed whose target contains `probe`.
    static func journal(probe: String) async throws -> [JournalEntry] {
        guard let url else { return [] }
        let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent("_journal"))
        return try JSONDecoder().decode([JournalEntry].self, from: data).filter { $0.target.contains(probe) }
    }

    static func probe() -> String { UUID().uuidString }
}
