public import Dispatch
public import NALCore

extension Client {
    /// Creates a client whose requests run through `middleware` (outermost first) before `transport`.
    ///
    /// The same parameters and defaults as
    /// `Client(transport:endpointMapping:willSend:deduplicatesRequests:deduplicatedMethods:callbackQueue:)`; the
    /// transport it keeps is a `MiddlewareChain`.
    public convenience init(
        middleware: [any Middleware],
        transport: any Transport = DefaultTransport.make(),
        endpointMapping: EndpointMapping? = nil,
        willSend: RequestHook? = nil,
        deduplicatesRequests: Bool = false,
        deduplicatedMethods: Set<HTTPMethod> = Client.safeMethods,
        callbackQueue: DispatchQueue? = nil
    ) {
        self.init(
            middleware: middleware, transport: transport,
            settings: Settings(
                endpointMapping: endpointMapping, willSend: willSend, deduplicatesRequests: deduplicatesRequests,
                deduplicatedMethods: deduplicatedMethods, callbackQueue: callbackQueue))
    }

    /// Creates a client whose requests run through `middleware` before `transport`, with `settings` (see
    /// `Client.Settings`).
    public convenience init(
        middleware: [any Middleware], transport: any Transport = DefaultTransport.make(), settings: Settings
    ) {
        self.init(transport: MiddlewareChain(middleware, transport: transport), settings: settings)
    }
}
