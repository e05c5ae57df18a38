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
        callbackQueue: DispatchQueue? = nil
    ) {
        self.init(
            transport: MiddlewareChain(middleware, transport: transport), endpointMapping: endpointMapping,
            willSend: willSend, deduplicatesRequests: deduplicatesRequests, callbackQueue: callbackQueue)
    }
}
