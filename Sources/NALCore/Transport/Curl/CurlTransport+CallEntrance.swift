#if os(Linux)
    /// Calls to an origin whose line for slots is long wait at `CurlCallEntrance`, before the `Client`'s middleware.
    extension CurlTransport: CallEntranceProviding {
        package var callEntrance: (any CallEntrance)? { CurlCallEntrance(loop: loop, idleTimeout: idleTimeout) }
    }
#endif
