#if os(Linux)
    /// The libcurl option numbers CurlTransport sets, as libcurl's ABI defines them (type base plus index:
    /// 0 for long, 10000 for pointers, 20000 for functions, 30000 for 64-bit offsets).
    enum CurlOption: Int32 {
        case writeData = 10001
        case url = 10002
        case readData = 10009
        case errorBuffer = 10010
        case seekFunction = 20167
        case seekData = 10168
        case writeFunction = 20011
        case readFunction = 20012
        case httpHeader = 10023
        /// `CURLOPT_SSLCERT`, `CURLOPT_KEYPASSWD`, `CURLOPT_SSLVERSION`, `CURLOPT_SSLCERTTYPE`, `CURLOPT_SSLKEY`,
        /// `CURLOPT_SSLKEYTYPE`, `CURLOPT_CAPATH`, `CURLOPT_PINNEDPUBLICKEY`.
        case clientCertificate = 10025
        case keyPassphrase = 10026
        case sslVersion = 32
        case clientCertificateType = 10086
        case clientKey = 10087
        case clientKeyType = 10088
        case certificateAuthorityFolder = 10097
        case pinnedPublicKey = 10230
        /// `CURLOPT_SSLCERT_BLOB`, `CURLOPT_SSLKEY_BLOB` (libcurl 7.71), `CURLOPT_CAINFO_BLOB` (7.77).
        case clientCertificateBlob = 40291
        case clientKeyBlob = 40292
        case certificateAuthorityBlob = 40309
        case headerData = 10029
        case headerFunction = 20079
        case customRequest = 10036
        case noProgress = 43
        case noBody = 44
        case post = 47
        case followLocation = 52
        case verifyPeer = 64
        case certificateAuthorityFile = 10065
        case httpGet = 80
        case verifyHost = 81
        case httpVersion = 84
        case noSignal = 99
        case acceptEncoding = 10102
        /// `CURLOPT_HTTP_CONTENT_DECODING`.
        case httpContentDecoding = 158
        case postFieldSizeLarge = 30120
        case copyPostFields = 10165
        case transferInfoData = 10057
        case transferInfoFunction = 20219
        case tcpKeepAlive = 213
        case pipeWait = 237
        /// `CURLOPT_PROTOCOLS`, the bitmask form: the string form (`_STR`) needs libcurl 7.85, and Ubuntu 22.04 has
        /// 7.81. Deprecated, still honoured.
        case protocols = 181
        case suppressConnectHeaders = 265
    }

    /// The libcurl multi-handle options CurlTransport sets.
    enum CurlMultiOption: Int32 {
        case pipelining = 3
        case maximumHostConnections = 7
    }

    /// Values for some of those options.
    enum CurlValue {
        /// `CURL_HTTP_VERSION_2TLS`: HTTP/2 over TLS when ALPN agrees, HTTP/1.1 otherwise.
        static let http2OverTLS = 4
        /// `CURL_HTTP_VERSION_1_1`.
        static let http11 = 2
        /// `CURLPIPE_MULTIPLEX`: several HTTP/2 streams on one connection.
        static let multiplex = 2
        /// `CURLE_OK`, `CURLM_OK`.
        static let ok: Int32 = 0
        /// `CURLPROTO_HTTP | CURLPROTO_HTTPS`.
        static let httpAndHTTPS = 3
        /// `CURL_SSLVERSION_TLSv1_2`, `CURL_SSLVERSION_TLSv1_3`: the oldest version a connection may use.
        static let tls12 = 6
        static let tls13 = 7
        /// `CURLPAUSE_CONT`.
        static let resume: Int32 = 0
    }
#endif
