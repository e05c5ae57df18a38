import Foundation
import NALCore

/// A GitHub-like API that `nal-cli demo` prepares requests for. Nothing is sent.
enum SampleAPI: RemoteService, CaseIterable {
    case zen
    case userProfile(String)
    case search(query: String, page: Int)
    case createIssue(owner: String, repo: String, title: String)
    case login(user: String, password: String)
    case updateSettings

    static let allCases: [SampleAPI] = [
        .zen, .userProfile("octo/cat?"), .search(query: "swift nio", page: 2),
        .createIssue(owner: "swiftlang", repo: "swift", title: "Crash in URLSession on Linux"),
        .login(user: "ada", password: "analytical engine"), .updateSettings,
    ]

    struct NewIssue: Encodable, Sendable {
        var title: String
        var body = "Steps to reproduce are below."
        var labels: [String]
        var assignees = ["ada", "grace"]
        var milestone = 7
        var draft = false
    }

    struct Credentials: Encodable, Sendable {
        var user: String
        var password: String
    }

    var baseURL: URL { URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/") }

    var path: String {
        switch self {
        case .zen: "zen"
        case .userProfile(let login): "users/\(pathSegment: login)"
        case .search: "search"
        case .createIssue(let owner, let repo, _): "repos/\(pathSegment: owner)/\(pathSegment: repo)/issues"
        case .login: "session"
        case .updateSettings: "user/settings"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .zen, .userProfile, .search: .get
        case .createIssue, .login: .post
        case .updateSettings: .patch
        }
    }

    var requestType: RequestType {
        switch self {
        case .zen, .userProfile:
            .plain
        case .search(let query, let page):
            .parameters(
                [
                    "q": .string(query), "page": .int(page), "per_page": 50, "sort": "stars", "order": "desc",
                    "tags": ["server", "linux"], "filter": ["lang": "swift", "min": 10],
                ],
                encoding: URLEncoding.default)
        case .createIssue(_, _, let title):
            .jsonEncodable(NewIssue(title: title, labels: ["bug", "linux"]))
        case .login(let user, let password):
            .formEncodable(Credentials(user: user, password: password))
        case .updateSettings:
            .parameters(
                [
                    "theme": "dark", "language": "en", "timezone": "UTC", "beta": true,
                    "notifications": ["email": true, "push": false, "digest": "weekly"], "token": "demo-secret-token",
                ],
                encoding: JSONEncoding.default)
        }
    }

    var headers: [String: String]? {
        switch self {
        case .createIssue: ["Authorization": "Bearer ghp_demoSecretToken", "Accept": "application/json"]
        case .login: ["Cookie": "session=demo-session-id"]
        default: nil
        }
    }

    /// How the endpoint reads in source, for the demo's headings.
    var caseDescription: String {
        switch self {
        case .zen: ".zen"
        case .userProfile(let login): ".userProfile(\(login.debugDescription))"
        case .search(let query, let page): ".search(query: \(query.debugDescription), page: \(page))"
        case .createIssue(let owner, let repo, _): ".createIssue(owner: \"\(owner)\", repo: \"\(repo)\", ...)"
        case .login(let user, _): ".login(user: \"\(user)\", password: ...)"
        case .updateSettings: ".updateSettings"
        }
    }
}
