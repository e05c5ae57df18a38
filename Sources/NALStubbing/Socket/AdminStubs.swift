import NALLogging

/// The stubs added to a listener over HTTP (`POST /__nal/stubs`), so that `DELETE /__nal/stubs` and
/// `POST /__nal/reset` remove those and leave the ones loaded from files or registered in Swift.
final class AdminStubs: Sendable {
    private let handles = Locked<[StubHandle]>([])

    /// Notes a stub added over HTTP.
    func add(_ handle: StubHandle) {
        handles.withLock { $0.append(handle) }
    }

    /// The stubs added over HTTP, forgotten here: the caller removes them.
    func takeAll() -> [StubHandle] {
        handles.withLock { handles in
            defer { handles = [] }
            return handles
        }
    }
}
