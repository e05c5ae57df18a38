#if os(Linux)
    import CCurl
    import Foundation

    // The C callbacks: `context` is the transfer, kept alive by the event loop while libcurl may call them.

    let curlReceiveBody: nal_curl_data_callback = { bytes, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receiveBody(UnsafeRawBufferPointer(start: bytes, count: size &* count))
    }

    let curlReceiveHeader: nal_curl_data_callback = { bytes, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receiveHeader(UnsafeRawBufferPointer(start: bytes, count: size &* count))
    }

    let curlSendBody: nal_curl_read_callback = { buffer, size, count, context in
        guard let context else { return 0x1000_0000 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size &* count))
    }

    let curlRewindBody: nal_curl_seek_callback = { context, offset, origin in
        guard let context else { return 1 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.rewindBody(to: offset, origin: origin)
    }

    let curlReportProgress: nal_curl_progress_callback = { context, _, received, _, sent in
        guard let context else { return 1 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.reportProgress(sent: sent, received: received)
    }
#endif
