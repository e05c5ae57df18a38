import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The network, for requests a stub server passes through (`.passThrough`, `ignore(_:)`): a plain session that no
/// stub server intercepts. Its own cookie handling is off: the stub server applies the stubbed session's settings,
/// and a recorder sees every cookie that is sent.
enum PassThrough {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration)
    }()

    /// Sends `request`, with the file an upload from NAL's transport named streamed as its body, exactly its
    /// length.
    static func send(_ request: URLRequest, uploadFile: URL?) async throws -> (Data, HTTPURLResponse) {
        var request = request
        if let uploadFile {
            let length = try FileAccess.readableFileSize(uploadFile)
            request = try UploadBodyStream([.file(uploadFile, length: length)]).attached(to: request)
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}
