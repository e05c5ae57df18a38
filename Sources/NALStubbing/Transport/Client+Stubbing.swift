public import Dispatch
public import NALCore

extension Client {
    /// Creates a client that answers from stubs: `Client<GitHub>(stubbing: .immediate)`.
    ///
    /// The same parameters and defaults as
    /// `Client(transport:endpointMapping:willSend:deduplicatesRequests:deduplicatedMethods:callbackQueue:)`; the
    /// transport is a `StubTransport` with `behavior`. To stub behind middleware, pass a `StubTransport` to
    /// `Client(middleware:transport:)`.
    public convenience init(
        stubbing behavior: StubBehavior<Service>,
        endpointMapping: EndpointMapping? = nil,
        willSend: RequestHook? = nil,
        deduplicatesRequests: Bool = false,
        deduplicatedMethods: Set<HTTPMethod> = Client.safeMethods,
        callbackQueue: DispatchQueue? = nil
    ) {
        self.init(
            stubbing: behavior,
            settings: Settings(
                endpointMapping: endpointMapping, willSend: willSend, deduplicatesRequests: deduplicatesRequests,
                deduplicatedMethods: deduplicatedMethods, callbackQueue: callbackQueue))
    }

    /// Creates a client that answers from stubs, with `settings` (see `Client.Settings`).
    public convenience init(stubbing behavior: StubBehavior<Service>, settings: Settings) {
        self.init(transport: StubTransport(behavior), settings: settings)
    }
}
