public import Dispatch

extension Client {
    /// Everything a client does with a call besides sending it, in one value that several clients can share. Every
    /// initialiser (`Client(transport:)`, `Client(stubbing:)`, `Client(middleware:)`) takes one (`settings:`) or
    /// builds one from its parameters; a test reads the public API to check that each parameter list names every
    /// setting held here.
    ///
    /// ```swift
    /// let settings = Client<GitHub>.Settings(deduplicatesRequests: true, callbackQueue: .global())
    /// let live = Client<GitHub>(transport: URLSessionTransport(), settings: settings)
    /// let stubbed = Client<GitHub>(stubbing: .immediate, settings: settings)
    /// ```
    public struct Settings: Sendable {
        /// Changes an endpoint before it is prepared: add headers, swap the request type.
        public var endpointMapping: EndpointMapping?
        /// Changes the prepared request just before it is sent.
        public var willSend: RequestHook?
        /// Whether identical concurrent requests share one call (`trackInProgress`). Off by default.
        public var deduplicatesRequests: Bool
        /// Which methods de-duplication shares: GET and HEAD by default. Two identical POSTs are two actions; add a
        /// method here only when sending it once for all callers is what you mean.
        public var deduplicatedMethods: Set<HTTPMethod>
        /// Where completion handlers run when a call names no queue (Moya's `callbackQueue`); the main queue when
        /// `nil`.
        public var callbackQueue: DispatchQueue?

        /// Creates settings; the defaults are those of `Client()`.
        public init(
            endpointMapping: EndpointMapping? = nil,
            willSend: RequestHook? = nil,
            deduplicatesRequests: Bool = false,
            deduplicatedMethods: Set<HTTPMethod> = Client.safeMethods,
            callbackQueue: DispatchQueue? = nil
        ) {
            self.endpointMapping = endpointMapping
            self.willSend = willSend
            self.deduplicatesRequests = deduplicatesRequests
            self.deduplicatedMethods = deduplicatedMethods
            self.callbackQueue = callbackQueue
        }
    }
}
