#if os(Linux)
    import Foundation
    import FoundationNetworking

    /// What `dump(transport)` shows: its settings, never the cookies of its storage (the default transport's is
    /// `HTTPCookieStorage.shared`, which holds every cookie of the process) nor its event loop's state.
    extension CurlTransport: CustomReflectable {
        /// The transport's settings; a cookie storage is named, its cookies are not shown.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "maximumResponseSize": maximumResponseSize, "redirectPolicy": redirectPolicy,
                    "idleTimeout": idleTimeout, "maximumConnectionsPerHost": maximumConnectionsPerHost,
                    "cookieStorage": cookieStorage.map { _ in "a storage (its cookies are not shown)" } ?? "none",
                    "multipartMemoryThreshold": multipartMemoryThreshold, "tls": tls,
                ], displayStyle: .class)
        }
    }
#endif
