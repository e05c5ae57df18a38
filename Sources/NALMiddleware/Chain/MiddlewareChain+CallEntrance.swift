package import NALCore

// A chain's calls wait at its transport's entrance: the Client then holds them before any middleware runs.
extension MiddlewareChain: CallEntranceProviding {
    package var callEntrance: (any CallEntrance)? { (transport as? any CallEntranceProviding)?.callEntrance }
}
