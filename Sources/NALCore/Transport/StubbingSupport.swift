/// A URLProtocol of NAL's stubbing layer. `URLSessionTransport` marks its requests with `markerHeader` when its
/// session has such a protocol, so that the stub server knows it talks to NAL's transport: one that takes the body in
/// chunks (Linux completion handlers keep only the last chunk a custom protocol loads) and follows redirects itself.
package protocol NALStubbingProtocol: AnyObject {}

package enum StubbingSupport {
    /// The header that marks a request from `URLSessionTransport`. Only sessions with a `NALStubbingProtocol` get it,
    /// and the stub server removes it before anything else sees the request.
    package static let markerHeader = "X-NAL-Transport"
    /// The header that names the file an upload streams, for the stub server's journal: a URLProtocol cannot see
    /// upload bodies on Linux. Sent only with `markerHeader`, and removed with it.
    package static let uploadFileHeader = "X-NAL-Upload-File"

    /// Whether `classes` include a NAL stubbing protocol.
    package static func includesStubbing(_ classes: [AnyClass]?) -> Bool {
        classes?.contains { $0 is any NALStubbingProtocol.Type } ?? false
    }
}
