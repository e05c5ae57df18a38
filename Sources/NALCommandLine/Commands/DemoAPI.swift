import Foundation
import NALCore
import NALMiddleware

/// The demo's GitHub-like API. The same endpoints are served by stubs, or by a real httpbin with `--live`, which is
/// why the paths are httpbin's.
struct DemoAPI: RemoteService, AccessTokenAuthorizable {
    enum Call {
        case profile
        case refreshToken(String)
        case status
        case repositories(page: Int)
        case avatar(MultipartFormData)
        case archive(saveTo: URL, bytes: Int)
    }

    let baseURL: URL
    let call: Call

    var path: String {
        switch call {
        case .profile: "basic-auth/ada/s3cret"
        case .refreshToken: "anything/login/oauth/access_token"
        case .status: "status/503"
        case .repositories: "anything/user/repos"
        case .avatar: "post"
        case .archive: "drip"
        }
    }

    var method: HTTPMethod {
        switch call {
        case .refreshToken, .avatar: .post
        default: .get
        }
    }

    var requestType: RequestType {
        switch call {
        case .profile, .status: .plain
        case .refreshToken(let refreshToken):
            .parameters(
                ["refresh_token": .string(refreshToken), "grant_type": "refresh_token"], encoding: JSONEncoding.default)
        case .repositories(let page): .parameters(["page": .int(page), "per_page": 2], encoding: URLEncoding.default)
        case .avatar(let form): .uploadMultipart(form)
        case .archive(let destination, let bytes):
            .downloadParameters(
                ["numbytes": .int(bytes), "duration": 1, "delay": 0], encoding: URLEncoding.queryString,
                destination: .file(destination))
        }
    }

    var accessTokenType: AccessTokenType {
        switch call {
        case .profile, .repositories, .avatar: .basic
        case .refreshToken, .status, .archive: .none
        }
    }
}

/// What the demo's endpoints answer, as httpbin shapes it.
enum DemoModels {
    struct Authenticated: Decodable {
        var authenticated: Bool
        var user: String
    }

    struct Echo: Decodable {
        var args: [String: String]
        var json: [String: String]?
    }

    struct Upload: Decodable {
        var form: [String: String]
        var files: [String: String]
    }
}
