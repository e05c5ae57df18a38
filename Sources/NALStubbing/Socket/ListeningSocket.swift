#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-blocking TCP socket listening on one address, for the stub listener.
struct ListeningSocket: Sendable {
    let descriptor: Int32
    /// The port it listens on: the one asked for, or the one the system chose for port 0.
    let port: Int
    /// The numeric address it listens on (`127.0.0.1`, `::1`).
    let address: String
    let isIPv6: Bool

    /// How many connections the system queues before `accept`.
    static let backlog: Int32 = 1024

    /// Binds `host` (a numeric address or a name such as `localhost`) and `port`, and listens.
    static func open(host: String, port: Int) throws(StubListenerError) -> ListeningSocket {
        guard (0...65535).contains(port) else {
            throw .cannotListen(host: host, port: port, reason: "a port is a number from 0 to 65535")
        }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw .cannotListen(host: host, port: port, reason: "the host does not resolve: \(reason)")
        }
        defer { freeaddrinfo(found) }
        // The first address of a name is the one the system prefers (`localhost` may give ::1 or 127.0.0.1).
        let family = first.pointee.ai_family
        let descriptor = socket(family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw .cannotListen(host: host, port: port, reason: Self.lastError()) }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            _ = closeSocket(descriptor)
            if code == EADDRINUSE { throw .addressInUse(host: host, port: port) }
            throw .cannotListen(host: host, port: port, reason: Self.describe(code))
        }
        guard listen(descriptor, backlog) == 0 else {
            let reason = lastError()
            _ = closeSocket(descriptor)
            throw .cannotListen(host: host, port: port, reason: reason)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, let (address, boundPort) = Self.numeric(storage) else {
            let reason = lastError()
            _ = closeSocket(descriptor)
            throw .cannotListen(host: host, port: port, reason: reason)
        }
        return ListeningSocket(
            descriptor: descriptor, port: boundPort, address: address, isIPv6: Int32(storage.ss_family) == AF_INET6)
    }

    /// The numeric address and port of a socket address.
    private static func numeric(_ storage: sockaddr_storage) -> (String, Int)? {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let length = socklen_t(
            Int32(storage.ss_family) == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return nil }
        let address = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int(port).map { (address, $0) }
    }

    /// Closes the socket, for a listener that could not start.
    func close() {
        _ = closeSocket(descriptor)
    }

    static func lastError() -> String { describe(errno) }

    static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}

/// `close(2)`, out of reach of `ListeningSocket.close()`.
private func closeSocket(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
