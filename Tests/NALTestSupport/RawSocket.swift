package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP client that sends exactly the bytes a test gives, for what no HTTP client sends: pipelined requests,
/// broken framing, heads a byte at a time. Its blocking calls run on threads of their own, off the cooperative pool.
package final class RawSocket: @unchecked Sendable {
    // @unchecked: the descriptor is used by one call at a time, as the tests use it.
    private let descriptor: Int32

    /// Connects to `127.0.0.1:port`.
    package init(port: Int, host: String = "127.0.0.1") throws {
        #if os(Linux)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
    }

    deinit {
        _ = Glibc.close(descriptor)
    }

    /// Sends all of `bytes`; `false` when the server closed.
    @discardableResult
    package func send(_ bytes: Data) async -> Bool {
        await run { [descriptor] in
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    /// Sends `text` as UTF-8.
    @discardableResult
    package func send(_ text: String) async -> Bool {
        await send(Data(text.utf8))
    }

    /// What the server sends until it closes, or until `quiet` passes with nothing new; and whether it closed.
    package func receive(quiet: Duration = .milliseconds(500)) async -> (data: Data, closed: Bool) {
        await run { [descriptor] in
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            let milliseconds = Int32(
                quiet.components.seconds * 1000 + quiet.components.attoseconds / 1_000_000_000_000_000)
            while true {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { return (received, false) }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return (received, true) }
                received.append(contentsOf: buffer[..<count])
            }
        }
    }

    /// What the server sends until `enough` says it is, it closes, or `timeout` passes: for answers that come in
    /// several writes, however slowly a loaded machine sends them.
    package func receive(
        until enough: @escaping @Sendable (Data) -> Bool, timeout: Duration = .seconds(10)
    ) async -> (data: Data, closed: Bool) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var received = Data()
        while clock.now < deadline {
            let (data, closed) = await receive(quiet: .milliseconds(100))
            received += data
            if closed || enough(received) { return (received, closed) }
        }
        return (received, false)
    }

    /// Ends sending, keeping the connection open for reading (a half-close).
    package func finishSending() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Runs a blocking call on a thread of its own: on the cooperative pool, many tests blocking at once would hold
    /// back the tasks that serve slow answers.
    private func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

/// The statuses of the HTTP responses in `data`, in order (`HTTP/1.1 200 OK` gives 200).
package func responseStatuses(_ data: Data) -> [Int] {
    let text = String(decoding: data, as: UTF8.self)
    return text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
}
