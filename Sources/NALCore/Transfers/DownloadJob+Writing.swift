package import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

extension DownloadJob {
    /// The headers that ask for the rest of the file, when the next exchange resumes: `Range` and `If-Range`.
    package var resumeHeaders: [String: String] {
        state.withLock { state in
            guard state.requestedOffset > 0, let validator = state.validator else { return [:] }
            return ["Range": "bytes=\(state.requestedOffset)-", "If-Range": validator]
        }
    }

    package func route(for response: HTTPURLResponse) throws(NALError) -> BodyRoute {
        guard (200..<300).contains(response.statusCode) else { return .memory }
        return try state.withLock { state throws(NALError) -> BodyRoute in
            let writer = try openWriter(&state, for: response)
            let length = response.expectedContentLength
            if state.intoDevice { return .file(alreadyReceived: 0, total: length >= 0 ? length : nil) }
            let encoded = response.value(forHTTPHeaderField: "Content-Encoding").map { $0.lowercased() != "identity" }
            state.acceptsRanges =
                encoded != true
                && (response.statusCode == 206
                    || response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("bytes") == true)
            if let validator = Self.validator(of: response) { state.validator = validator }
            if response.statusCode == 206 {
                let header = response.value(forHTTPHeaderField: "Content-Range")
                guard state.requestedOffset > 0, let range = header.flatMap(ContentRange.init),
                    let bounds = range.range, bounds.start == state.requestedOffset,
                    writer.size == state.requestedOffset,
                    // A part of another file's size would complete the kept file wrongly. (A part longer than its
                    // range is stopped as it is written, one shorter when it ends: see `expectedEnd`.)
                    range.total == nil || state.expectedTotal == nil || range.total == state.expectedTotal
                else {
                    // The server will answer the same way again: resuming would only repeat it.
                    state.brokeProtocol = true
                    throw Self.protocolBroken(
                        "the server sent a range (\(header.map(DisplayText.capped) ?? "no Content-Range")) "
                            + "other than the one asked for (bytes=\(state.requestedOffset)-)",
                        url: response.url)
                }
                if let total = range.total { state.expectedTotal = total }
                state.expectedEnd = (range.range?.end ?? -1) + 1
                keepRecord(&state, writer)
                return .file(alreadyReceived: state.requestedOffset, total: range.total)
            }
            // The whole body: the server ignored the range, or the file changed since. Start again.
            if writer.size > 0 { try destinationError(state) { () throws(NALError) in try writer.truncate() } }
            state.requestedOffset = 0
            let plain = encoded != true && length >= 0
            state.expectedTotal = plain ? length : nil
            state.expectedEnd = plain ? length : nil
            keepRecord(&state, writer)
            return .file(alreadyReceived: 0, total: length >= 0 ? length : nil)
        }
    }

    /// Writes the resume record as soon as the file can be resumed, while it is being written: a call made while
    /// this one still cleans up (or after this process died) finds the file, and waits for its lock.
    func keepRecord(_ state: inout State, _ writer: FileWriter) {
        guard let recordDirectory, !state.intoDevice, state.acceptsRanges, let validator = state.validator,
            let destination = state.destination
        else { return }
        let record = ResumeRecord(
            source: recordKey, validator: validator, destination: destination.path,
            partialName: writer.url.lastPathComponent, device: writer.identity.device,
            inode: writer.identity.inode, total: state.expectedTotal)
        guard record != state.record else { return }
        record.write(in: recordDirectory)
        state.record = record
    }

    package func write(_ data: Data) throws(NALError) {
        let found = try state.withLock { state throws(NALError) -> (FileWriter, URL?)? in
            guard let writer = state.writer else { return nil }
            if let end = state.expectedEnd, writer.size + Int64(data.count) > end {
                // More than the range or length the server announced: a server answering this way again would do
                // the same, so the download stops here rather than writing a file of the wrong size.
                state.brokeProtocol = true
                throw Self.protocolBroken(
                    "the server sent more bytes than its Content-Range or Content-Length announced "
                        + "(the file would pass \(end) bytes)", url: nil)
            }
            return (writer, state.destination)
        }
        guard let (writer, destination) = found else { return }
        do {
            try writer.append(data)
        } catch {
            throw Self.asDestinationError(error, destination)
        }
    }

    /// Whether the call can continue after `error` with a range request, and if so prepares it: bytes of this file
    /// were written, the server serves ranges, the file has a validator to check it has not changed, and the
    /// server did not break the protocol.
    package func prepareResume(after error: NALError) -> Bool {
        switch error {
        case .transport(let urlError) where Self.resumableCodes.contains(urlError.code): break
        case .timedOut(let failure) where failure.limit == .idle: break
        default: return false
        }
        return state.withLock { state in
            guard !state.brokeProtocol, !state.intoDevice, let writer = state.writer, state.acceptsRanges,
                state.validator != nil
            else { return false }
            let size = writer.size
            guard size > 0 else { return false }
            state.requestedOffset = size
            return true
        }
    }

    /// Failures of the connection, which another exchange may not meet; a body that cannot be decoded or parsed
    /// would fail the same way again.
    static let resumableCodes: Set<URLError.Code> = [
        .networkConnectionLost, .timedOut, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost,
        .dnsLookupFailed, .secureConnectionFailed, .resourceUnavailable,
    ]
}
