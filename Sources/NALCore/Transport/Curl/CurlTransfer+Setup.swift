#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NALLogging
    import NALSupport

    extension CurlTransfer {
        func configure(
            _ handle: UnsafeMutableRawPointer, for request: URLRequest, upload: UploadBody?
        ) throws(NALError) {
            let context = Unmanaged.passUnretained(self).toOpaque()
            try set(.url, url.absoluteString)
            try set(.noSignal, 1)
            // A child process the program starts must not inherit, and so hold open, a connection NAL closed.
            try check(nal_curl_easy_open_sockets_closed_on_exec(handle))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.errorBuffer.rawValue, errorBuffer))
            // NAL follows redirects itself, with its credential rules; libcurl only speaks HTTP here.
            try set(.followLocation, 0)
            try set(.protocols, CurlValue.httpAndHTTPS)
            // A proxy tunnel's "200 Connection established" is not the response.
            try set(.suppressConnectHeaders, 1)
            try configureTLS()
            try set(.tcpKeepAlive, 1)
            // A burst of calls to an HTTP/2 host waits to share the first connection instead of opening more. Only
            // over https, the one place HTTP/2 is offered (ALPN): on plain http, libcurl 7.88 holds a call to a host
            // with no open connection yet until the first call's response head has arrived.
            if url.scheme?.lowercased() == "https" { try set(.pipeWait, 1) }
            try set(.httpVersion, nal_curl_supports_http2() != 0 ? CurlValue.http2OverTLS : CurlValue.http11)
            // NAL decodes what it offers itself (`ContentDecoder`), so that a coding cut short is an error; libcurl
            // passes the coded bytes on. The limit counts decoded bytes.
            try set(.acceptEncoding, ContentDecoding.offered)
            try set(.httpContentDecoding, 0)
            try check(nal_curl_easy_setopt_data_callback(handle, CurlOption.writeFunction.rawValue, curlReceiveBody))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.writeData.rawValue, context))
            try check(nal_curl_easy_setopt_data_callback(handle, CurlOption.headerFunction.rawValue, curlReceiveHeader))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.headerData.rawValue, context))
            try set(.noProgress, 0)
            try check(
                nal_curl_easy_setopt_progress_callback(
                    handle, CurlOption.transferInfoFunction.rawValue, curlReportProgress))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.transferInfoData.rawValue, context))
            var request = request
            switch upload {
            case .data(let data)?:
                request.httpBody = data
            case .segments(let segments, let length)?:
                try configureStreamedBody(segments, length: length, method: request.httpMethod ?? "POST")
                if request.value(forHTTPHeaderField: "Content-Type") == nil {
                    request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
                }
                return try configureHeaders(of: request)
            case nil:
                break
            }
            try configureMethod(of: request)
            try configureHeaders(of: request)
        }

        /// Checking on, always; then what the transport's `TLSConfiguration` adds.
        func configureTLS() throws(NALError) {
            try set(.verifyPeer, 1)
            try set(.verifyHost, 2)
            try set(.sslVersion, tls.minimumVersion == .tls13 ? CurlValue.tls13 : CurlValue.tls12)
            // The files' bytes as the transport read them when it was made, not the paths: libcurl would open them again
            // for each connection, on the event loop's thread, and a path that became a FIFO would stop it.
            if let certificateAuthorities = tls.certificateAuthorities {
                if !(try setBlob(.certificateAuthorityBlob, tls.certificateAuthoritiesPEM)) {
                    try set(.certificateAuthorityFile, certificateAuthorities)
                }
                // Only the file's authorities: libcurl would also trust the system's folder of them. A TLS library
                // without folders (CURLE_NOT_BUILT_IN) has none to drop.
                let folder = nal_curl_easy_setopt_pointer(handle, CurlOption.certificateAuthorityFolder.rawValue, nil)
                if folder != CurlCode.notBuiltIn { try check(folder) }
            }
            if let certificate = tls.certificate, let privateKey = tls.privateKey {
                if !(try setBlob(.clientCertificateBlob, tls.certificatePEM)) {
                    try set(.clientCertificate, certificate)
                }
                try set(.clientCertificateType, "PEM")
                if !(try setBlob(.clientKeyBlob, tls.privateKeyPEM)) { try set(.clientKey, privateKey) }
                try set(.clientKeyType, "PEM")
                // Always a passphrase, if an empty one: without it OpenSSL asks the terminal for one, and waits.
                try set(.keyPassphrase, tls.passphrase ?? "")
            }
            if let pins = tls.pinnedPublicKeys { try set(.pinnedPublicKey, pins) }
            // A server that asks for a certificate when none is configured is noted, to say so if it then fails the
            // connection (in TLS 1.3 it does once the handshake is over, as a reset or a bare alert).
            if tls.certificate == nil, url.scheme?.lowercased() == "https" {
                try check(nal_curl_watch_certificate_requests(handle, token))
                watchesCertificateRequests = true
            }
        }

        /// A body read from its segments (files and bytes) as libcurl sends it, on the event loop's thread.
        func configureStreamedBody(
            _ segments: [UploadBodyStream.Segment], length: Int64, method: String
        ) throws(NALError) {
            let stream = try UploadBodyStream(segments)
            stream.open()
            uploadStream = stream
            uploadSegments = segments
            // libcurl sends the body again when a reused connection turns out closed; it rewinds it through this.
            try check(nal_curl_easy_setopt_seek_callback(handle, CurlOption.seekFunction.rawValue, curlRewindBody))
            try check(
                nal_curl_easy_setopt_pointer(
                    handle, CurlOption.seekData.rawValue, Unmanaged.passUnretained(self).toOpaque()))
            try set(.post, 1)
            try set(.postFieldSizeLarge, length)
            try check(nal_curl_easy_setopt_read_callback(handle, CurlOption.readFunction.rawValue, curlSendBody))
            try check(
                nal_curl_easy_setopt_pointer(
                    handle, CurlOption.readData.rawValue, Unmanaged.passUnretained(self).toOpaque()))
            if method != "POST" { try set(.customRequest, method) }
        }

        func configureMethod(of request: URLRequest) throws(NALError) {
            let method = request.httpMethod ?? "GET"
            let body = request.httpBody
            switch (method, body) {
            case ("GET", nil): try set(.httpGet, 1)
            case ("HEAD", _): try set(.noBody, 1)
            case (_, let body?):
                // libcurl copies the body, so that nothing of ours has to outlive the call.
                try set(.postFieldSizeLarge, Int64(body.count))
                let code = body.withUnsafeBytes { bytes in
                    // An empty body still needs a pointer, or libcurl would read the body from a callback; a
                    // static empty string lives as long as the process.
                    let start = bytes.baseAddress ?? UnsafeRawPointer(Self.emptyBody.utf8Start)
                    return nal_curl_easy_setopt_pointer(handle, CurlOption.copyPostFields.rawValue, start)
                }
                try check(code)
                if method != "POST" { try set(.customRequest, method) }
            case ("POST", nil), ("PUT", nil), ("PATCH", nil):
                // Methods whose body means something say it is empty (RFC 9110 8.6), as URLSession does: some servers
                // answer 411 otherwise.
                var request = request
                request.httpBody = Data()
                try configureMethod(of: request)
            case (_, nil):
                try set(.customRequest, method)
            }
        }

        static let emptyBody: StaticString = ""

        func configureHeaders(of request: URLRequest) throws(NALError) {
            var lines: [String] = []
            let fields = request.allHTTPHeaderFields ?? [:]
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                // libcurl sends "Name;" as a field with an empty value; "Name:" would remove it.
                lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            let has = Set(fields.keys.map { $0.lowercased() })
            // What libcurl would add on its own: no Expect: 100-continue round trip, which URLSession does not make
            // either, and no form Content-Type for a body whose type the caller did not give (FoundationNetworking
            // adds one; the porting table in Transports.md says so).
            if !has.contains("expect") { lines.append("Expect:") }
            if !has.contains("content-type") { lines.append("Content-Type:") }
            for line in lines {
                guard let appended = nal_curl_slist_append(headerList, line) else {
                    throw .transport(CurlCode.urlError(CurlCode.outOfMemory, url: url))
                }
                headerList = appended
            }
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.httpHeader.rawValue, headerList))
        }

        /// Sets a blob option to a copy of `bytes`; `false` when this libcurl has no such option (before 7.77), and
        /// the path must do.
        func setBlob(_ option: CurlOption, _ bytes: Data?) throws(NALError) -> Bool {
            guard let bytes else { return false }
            let code = bytes.withUnsafeBytes { buffer in
                nal_curl_easy_setopt_blob(handle, option.rawValue, buffer.baseAddress, buffer.count)
            }
            if code == CurlCode.unknownOption || code == CurlCode.notBuiltIn { return false }
            try check(code)
            return true
        }

        func set(_ option: CurlOption, _ value: Int) throws(NALError) {
            try check(nal_curl_easy_setopt_long(handle, option.rawValue, value))
        }

        func set(_ option: CurlOption, _ value: Int64) throws(NALError) {
            try check(nal_curl_easy_setopt_offset(handle, option.rawValue, value))
        }

        func set(_ option: CurlOption, _ value: String) throws(NALError) {
            // libcurl copies string options when they are set.
            let code = value.withCString { nal_curl_easy_setopt_pointer(handle, option.rawValue, $0) }
            try check(code)
        }

        func check(_ code: Int32) throws(NALError) {
            guard code != CurlValue.ok else { return }
            throw .transport(CurlCode.urlError(code, url: url))
        }
    }
#endif
