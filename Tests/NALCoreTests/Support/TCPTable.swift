import Foundation

/// This machine's TCP connections, as the kernel lists them in `/proc/net/tcp` and `/proc/net/tcp6`.
enum TCPTable {
    /// The inode of the socket of this machine with local port `localPort` connected to `remotePort` (state 01), or
    /// `nil` when there is none.
    static func establishedSocket(localPort: Int, remotePort: Int) -> Int? {
        // A row reads "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...", addresses as
        // hex "0100007F:A1B2".
        func port(_ address: Substring) -> Int? { address.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: String(contentsOfFile:) stops at procfs's first page (4 KiB, about 27 rows).
            guard let handle = FileHandle(forReadingAtPath: table), let bytes = try? handle.readToEnd() else {
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            for row in text.split(separator: "\n").dropFirst() {
                let fields = row.split(separator: " ")
                guard fields.count > 9 else { continue }
                if port(fields[1]) == localPort, port(fields[2]) == remotePort, fields[3] == "01" {
                    return Int(fields[9])
                }
            }
        }
        return nil
    }

    /// Whether this process has a descriptor for the socket `inode`.
    static func processHolds(socket inode: Int) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == "socket:[\(inode)]"
        }
    }

    /// The `open(2)` flags of this process's descriptor for the socket `inode` (octal in `/proc/self/fdinfo`), or
    /// `nil` when it holds none.
    static func descriptorFlags(socket inode: Int) -> Int? {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors
        where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"))
            == "socket:[\(inode)]"
        {
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/fdinfo/\(descriptor)"),
                let bytes = try? handle.readToEnd()
            else { return nil }
            let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("flags:") }
            return line.flatMap { Int($0.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8) }
        }
        return nil
    }

    /// Polls every 2 ms, on a thread of its own, until the connection is closed (or 30 s passed), and keeps when
    /// that was. Closed means: no longer established; or, with `byThisProcess`, no longer held by this process,
    /// whatever child processes that inherited the socket do.
    final class CloseWatch: @unchecked Sendable {
        // @unchecked: `closedAt` is behind `lock`.
        private let lock = NSLock()
        private var closedAt: ContinuousClock.Instant?

        init(localPort: Int, remotePort: Int, byThisProcess: Bool) {
            let thread = Thread { [self] in
                let start = ContinuousClock.now
                while let inode = TCPTable.establishedSocket(localPort: localPort, remotePort: remotePort),
                    !byThisProcess || TCPTable.processHolds(socket: inode),
                    ContinuousClock.now - start < .seconds(30)
                {
                    usleep(2000)
                }
                lock.withLock { closedAt = ContinuousClock.now }
            }
            thread.start()
        }

        /// When the connection closed, once the watch has seen it.
        func closed() async -> ContinuousClock.Instant? {
            while true {
                if let closedAt = lock.withLock({ closedAt }) { return closedAt }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}
