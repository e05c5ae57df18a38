/// A transport with a `CallEntrance`, or one that passes a `Client`'s calls on to such a transport
/// (`MiddlewareChain`).
package protocol CallEntranceProviding: Sendable {
    /// The entrance for this transport's calls, or `nil` when calls need none.
    var callEntrance: (any CallEntrance)? { get }
}
