import NALSupport

/// The one seam between `URLSessionTransport` and NAL's stub server (NALStubbing's `StubServer`), which is a
/// URLProtocol inside the transport's session: everything NALCore knows about stubbing is here.
///
/// - Detection: a session whose `protocolClasses` include a `StubSessionSeam.Protocol` is a stub session.
/// - Marker headers: in a stub session, the transport marks each request with `markerHeader` (carrying this
///   process's random `markerValue`; callers may not set either header), so that the stub
///   server knows it talks to NAL's transport (which takes bodies in chunks and follows redirects itself), and names
///   the file an upload streams in `uploadFileHeader` (a URLProtocol cannot see upload bodies on Linux, fact 5).
///   URLProtocol properties are lost when Linux bridges requests, hence headers. The stub server removes both before
///   anything else sees the request, and `Response.request` never holds them.
/// - Backpressure: a stub server produces body chunks in a Swift task, which must never block a thread, so it waits
///   with `awaitDelegateCapacity()` while the transports' delegate queues are full.
///
/// Beyond this seam, NALStubbing uses a short list of NALCore's transfer machinery, because `StubTransport` is a
/// second `Transport` whose stubbed downloads, uploads and progress must behave as real ones: `DownloadJob`,
/// `ProgressReporter`, `MultipartEncoder` and `FileAccess`, `DisplayText` for URLs in messages, and `DeadlineTimer` for
/// a stubbed request's timeouts.
/// `scripts/check-seams.sh` (run by `scripts/test.sh`) fails when any module uses a package type not listed for it.
package enum StubSessionSeam {
    /// The header that marks a request from `URLSessionTransport` in a stub session.
    package static let markerHeader = "X-NAL-Transport"
    /// The header that names the file an upload streams, sent only with `markerHeader`.
    package static let uploadFileHeader = "X-NAL-Upload-File"
    /// The value of `markerHeader`: a random token of this process, so that nobody else (an endpoint's headers, a
    /// plain URLSession request) can pass for NAL's transport and make the stub server read a file it names.
    package static let markerValue: String = (0..<2).map { _ in
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }.joined()

    /// Whether `name` is one of the marker headers, which only NAL's transport may send.
    package static func isMarker(_ name: String) -> Bool {
        HTTPToken.equalsIgnoringASCIICase(name, markerHeader)
            || HTTPToken.equalsIgnoringASCIICase(name, uploadFileHeader)
    }

    /// Whether `classes` include a NAL stubbing protocol.
    package static func includesStubbing(_ classes: [AnyClass]?) -> Bool {
        classes?.contains { $0 is any StubSessionProtocol.Type } ?? false
    }

    /// Waits, without blocking a thread, while the transports' delegate queues are full (at most 250 ms).
    package static func awaitDelegateCapacity() async {
        await SerialDelegateQueue.awaitCapacity()
    }
}

/// A URLProtocol of NAL's stubbing layer: the mark by which `URLSessionTransport` knows its session is a stub
/// session (see `StubSessionSeam`).
package protocol StubSessionProtocol: AnyObject {}
