extension LoggingMiddleware {
    /// One log entry before it is written, as a `Formatter` gets it: every secret already redacted (URL, headers,
    /// bodies), bodies cut to `maximumBodyBytes`, and the target named without its payload. Parts that `options`
    /// leaves out are `nil` or empty.
    public struct Entry: Sendable {
        /// What the entry reports.
        public enum Kind: Sendable, Equatable {
            /// A request about to be sent.
            case request
            /// A response, or for a streamed response its head.
            case response
            /// A call that ended with an error.
            case failure
            /// The end of a streamed body: `byteCount` bytes in `duration`, or `error`.
            case streamEnded
        }

        /// What the entry reports.
        public var kind: Kind
        /// The call's target as `Type.case` (`GitHub.userProfile`), without its associated values, which may hold
        /// secrets; for an `Endpoint` that wraps one, the wrapped target's (Moya's `target` in `NetworkLoggerPlugin`).
        public var target: String
        /// The request's method.
        public var method: String
        /// The request's URL, redacted.
        public var url: String
        /// Which attempt of the call this is: 1, then 2 and on for retries.
        public var attempt: Int
        /// The response's status code, for `.response`.
        public var statusCode: Int?
        /// The request's or response's header fields, redacted, in name order; empty without `.headers`.
        public var headers: [(name: String, value: String)]
        /// The body as text, redacted and cut (or a note such as `(2048 bytes of binary data)`); `nil` without
        /// `.bodies`, or for a request without one.
        public var body: String?
        /// The request as a redacted `curl` command, with `.curl`.
        public var curlCommand: String?
        /// How long the response took (with `.timing`), or the streamed body.
        public var duration: Duration?
        /// The bytes of body received, for `.response` (0 for a streamed response, whose body follows) and
        /// `.streamEnded`.
        public var byteCount: Int64?
        /// What went wrong, for `.failure` and a `.streamEnded` that failed.
        public var error: String?

        /// Creates an entry; the middleware does, and a test of a formatter may.
        public init(
            kind: Kind, target: String, method: String, url: String, attempt: Int = 1,
            statusCode: Int? = nil, headers: [(name: String, value: String)] = [], body: String? = nil,
            curlCommand: String? = nil, duration: Duration? = nil, byteCount: Int64? = nil, error: String? = nil
        ) {
            self.kind = kind
            self.target = target
            self.method = method
            self.url = url
            self.attempt = attempt
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.curlCommand = curlCommand
            self.duration = duration
            self.byteCount = byteCount
            self.error = error
        }
    }
}
