// swift-format-ignore-file: NeverForceUnwrap

// (The README shows a literal base URL as users write one.)
// Docs: begin endpoint
import Foundation
import NALCore

enum GitHub: RemoteService {
    case zen
    case userProfile(String)
    case search(query: String, page: Int)
    case createIssue(owner: String, repo: String, NewIssue)

    var baseURL: URL { URL(string: "https://api.github.com")! }

    var path: String {
        switch self {
        case .zen: "zen"
        case .userProfile(let login): "users/\(pathSegment: login)"
        case .search: "search/repositories"
        case .createIssue(let owner, let repo, _):
            "repos/\(pathSegment: owner)/\(pathSegment: repo)/issues"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .createIssue: .post
        default: .get
        }
    }

    var requestType: RequestType {
        switch self {
        case .zen, .userProfile:
            .plain
        case .search(let query, let page):
            .parameters(
                ["q": .string(query), "page": .int(page), "sort": "stars"],
                encoding: URLEncoding.default)
        case .createIssue(_, _, let issue):
            .jsonEncodable(issue)
        }
    }

    var headers: [String: String]? { ["Accept": "application/vnd.github+json"] }
}

struct NewIssue: Encodable, Sendable {
    var title: String
    var labels: [String]
}

struct Repository: Decodable, Sendable {
    var fullName: String
    var stargazersCount: Int
}
// Docs: end endpoint
