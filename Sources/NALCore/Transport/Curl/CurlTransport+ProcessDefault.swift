#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking

    /// The transport that `DefaultTransport` shares: it refuses `shutdown()` (every client that names no transport
    /// depends on it), and sends a `User-Agent` as FoundationNetworking does, so that code which named no transport
    /// sends what it did.
    extension CurlTransport {
        /// Makes this the transport that `DefaultTransport` shares.
        func becomeProcessDefault() { isProcessDefault.store(true, ordering: .relaxed) }

        /// FoundationNetworking's `User-Agent`: the program's name and libcurl's version (some APIs, GitHub's among
        /// them, refuse a request without one).
        static let processDefaultUserAgent: String = {
            let version =
                String(cString: nal_curl_version()).split(separator: " ").first?
                .split(separator: "/").last.map(String.init) ?? "unknown"
            // A program's name may hold any byte; none that a header cannot carry goes out.
            let scalars = ProcessInfo.processInfo.processName.unicodeScalars.map { scalar in
                scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
            }
            let name = String(String.UnicodeScalarView(scalars))
            return "\(name) (unknown version) curl/\(version)"
        }()

        /// `request` with what the process default adds: a `User-Agent`, unless it has one (in any spelling).
        func withDefaultFields(_ request: URLRequest) -> URLRequest {
            guard isProcessDefault.load(ordering: .relaxed), request.value(forHTTPHeaderField: "User-Agent") == nil
            else { return request }
            var request = request
            request.setValue(Self.processDefaultUserAgent, forHTTPHeaderField: "User-Agent")
            return request
        }
    }
#endif
