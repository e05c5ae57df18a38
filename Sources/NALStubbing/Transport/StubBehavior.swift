public import NALCore

/// How `StubTransport` answers a target that has no response registered for it: Mockingbird's and Moya's stub
/// behaviours.
public enum StubBehavior<Service: RemoteService>: Sendable {
    /// Don't stub: send the request through the real transport.
    case never
    /// Answer at once with the endpoint's `testData` and status 200.
    case immediate
    /// Answer with the endpoint's `testData` and status 200 after a wait.
    case delayed(Duration)
    /// Answer with whatever the closure returns for the target.
    case custom(@Sendable (Service) -> StubResponse)
}
