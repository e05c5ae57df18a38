/// How far a transfer has come: the bytes sent and received so far, with their totals when known.
///
/// Progress is NAL's own value type: Foundation's `Progress` traps on Linux when it is used across threads.
public struct TransferProgress: Sendable, Equatable {
    /// Body bytes sent so far.
    public var bytesSent: Int64
    /// The request body's size, when known.
    public var totalBytesToSend: Int64?
    /// Body bytes received so far, counting bytes an earlier connection received before a download resumed.
    public var bytesReceived: Int64
    /// The response body's size, when the server announced it.
    public var totalBytesToReceive: Int64?
    /// Which attempt of the call this is: 1 for the first. A retry starts its progress again from zero, and its
    /// events say so here.
    public var attempt: Int
    /// How much of the transfer is done, from 0 to 1: the upload's share sent for an upload, the body's share
    /// received otherwise; `nil` while the total is unknown. The last event of a completed transfer says 1.
    public var fractionCompleted: Double?

    /// Creates a progress value.
    public init(
        bytesSent: Int64 = 0, totalBytesToSend: Int64? = nil, bytesReceived: Int64 = 0,
        totalBytesToReceive: Int64? = nil, attempt: Int = 1, fractionCompleted: Double? = nil
    ) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesToReceive = totalBytesToReceive
        self.attempt = attempt
        self.fractionCompleted = fractionCompleted
    }
}

/// What `Client.transfer(_:)` reports: progress while the transfer runs, then the response.
public enum TransferEvent: Sendable {
    /// Bytes moved.
    case progress(TransferProgress)
    /// The transfer ended with this validated response. A download's file is at `response.fileURL`.
    case completed(Response)
}

/// Receives progress. Transports call it from their own threads, often; it must return quickly.
public typealias TransferProgressHandler = @Sendable (TransferProgress) -> Void
