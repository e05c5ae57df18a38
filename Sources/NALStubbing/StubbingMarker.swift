import NALCore

/// The header by which NAL's transport tells a stub server that it takes bodies in chunks and follows redirects
/// itself. The server removes it before matching, journaling or passing a request on; it is public so that tests
/// can check that it never shows.
public enum StubbingMarker {
    /// `X-NAL-Transport`.
    public static var header: String { StubbingSupport.markerHeader }
}
