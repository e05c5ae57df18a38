/// What tests and the command line set on a listener beyond `listen(host:port:as:)`.
package struct ListenerOptions: Sendable {
    /// Serve `/__nal/…` (the journal as JSON, emptying it): the command line's listener does.
    package var adminEndpoints = false
    package var limits = HTTPRequestParser.Limits()
    package var timeouts = ListenerTimeouts()

    package init() {}
}
