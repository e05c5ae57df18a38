import Foundation
import NALCore

/// The key of a stub server's index: the method, lower-cased host and path of a request.
struct StubIndexKey: Hashable, Sendable {
    let method: String
    let host: String
    let path: String

    init(method: String, host: String, path: String) {
        self.method = method
        self.host = host
        self.path = path
    }

    init(_ request: RecordedRequest) {
        method = request.method
        host = request.url.host?.lowercased() ?? ""
        path = request.path
    }
}
