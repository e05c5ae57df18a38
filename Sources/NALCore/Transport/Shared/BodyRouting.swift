package import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Where a response body goes.
package enum BodyRoute: Sendable, Equatable {
    /// Kept in memory, up to the in-memory limit: the body of a response that is not the download's file (a 404,
    /// a redirect).
    case memory
    /// Written to the download's file. `alreadyReceived` bytes are in it from before (a resumed download), and
    /// `total` is the whole file's size when known.
    case file(alreadyReceived: Int64, total: Int64?)
}

/// Decides where a response's body goes and takes the bytes that go to a file. Called on the transport's delegate
/// queue, one call at a time per task.
package protocol BodyRouting: Sendable {
    /// Where the body of `response` goes; prepares the file when it goes to one.
    func route(for response: HTTPURLResponse) throws(NALError) -> BodyRoute
    /// Appends body bytes to the file.
    func write(_ data: Data) throws(NALError)
}
