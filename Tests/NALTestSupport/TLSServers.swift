package import Foundation
package import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTPS servers of `scripts/tls_server.py`, which `scripts/test.sh` starts with the HTTP/2 server and announces
/// in `NAL_TLS_DIR`: the folder of their certificates and of `servers.json` (ports and pins).
package enum TLSServers {
    package static let directory: URL? = ProcessInfo.processInfo.environment["NAL_TLS_DIR"].map {
        URL(fileURLWithPath: $0, isDirectory: true)
    }

    package static let skipReason: Comment = "NAL_TLS_DIR is not set: run scripts/test.sh to start the TLS servers"

    private struct Description: Decodable {
        var ports: [String: Int]
        var pins: [String: String]
        var passphrase: String
        var proxyCredentials: String
    }

    private static let description: Description? = directory.flatMap { directory in
        (try? Data(contentsOf: directory.appendingPathComponent("servers.json"))).flatMap {
            try? JSONDecoder().decode(Description.self, from: $0)
        }
    }

    /// `https://localhost:PORT` of the server `name` (`trusted`, `chain`, `other-ca`, `self-signed`, `expired`,
    /// `wrong-host`, `tls12-only`, `client-auth`, `client-auth-tls12`).
    package static func url(_ name: String) throws -> URL {
        let port = try #require(description?.ports[name], "no TLS server named \(name)")
        return try #require(URL(string: "https://localhost:\(port)"))
    }

    /// A file of the folder: `ca.pem`, `client.pem`, `client-key-encrypted.pem`…
    package static func file(_ name: String) throws -> URL {
        try #require(directory).appendingPathComponent(name)
    }

    /// The pin of a certificate (`trusted`, `chain-leaf`, `intermediate`, `ca`, `other`, `self-signed`), as
    /// `openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64` printed it.
    package static func pin(_ name: String) throws -> String {
        try #require(description?.pins[name], "no pin for \(name)")
    }

    /// The passphrase of `client-key-encrypted.pem`.
    package static var passphrase: String {
        get throws { try #require(description?.passphrase) }
    }

    /// `user:password` that the `proxy-auth` proxy wants.
    package static var proxyCredentials: String {
        get throws { try #require(description?.proxyCredentials) }
    }

    /// What one of the proxies (`proxy`, `proxy-auth`) was asked, oldest first.
    package struct ProxyRequest: Decodable, Sendable, Equatable {
        package var method: String
        package var target: String
        package var proxyAuthorization: Bool
        package var authorized: Bool
    }

    /// The journal of the proxy `name`, read over a connection of its own (no proxy).
    package static func journal(_ name: String) async throws -> [ProxyRequest] {
        let port = try #require(description?.ports[name])
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/__journal"))
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode([ProxyRequest].self, from: data)
    }

    /// What every server answers.
    package struct Answer: Decodable, Sendable {
        package var path: String
        /// `TLSv1.2` or `TLSv1.3`.
        package var tls: String
        /// The common name of the client certificate the server accepted, if any.
        package var client: String?
        /// The names of the request's fields, lowercased.
        package var headers: [String]
    }
}
