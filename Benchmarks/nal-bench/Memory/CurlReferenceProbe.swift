#if os(Linux)
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #endif
    import NALCore

    /// `nal-bench transfer curl-download URL DESTINATION ROUNDS` and `curl-upload URL FILE ROUNDS`: NAL's Client over
    /// CurlTransport against the curl CLI making the same transfer (`curl -o`, `curl -T`), in interleaved rounds
    /// whose order alternates; reports both MB/s and NAL's median ratio. NAL's downloads are durable (the file and
    /// its directory are flushed to disk before the file is moved into place), so the reference is `curl -o`
    /// followed by the same two `fsync` calls.
    enum CurlReferenceProbe {
        struct Report: Encodable {
            var bytes: Int64
            var nalMegabytesPerSecond: [Double]
            var curlMegabytesPerSecond: [Double]
            /// NAL's median throughput over the curl CLI's.
            var ratio: Double
        }

        static func download(_ url: URL, to destination: URL, rounds: Int) async -> Int32 {
            let copy = destination.appendingPathExtension("curl")
            defer { try? FileManager.default.removeItem(at: copy) }
            let arguments = ["--silent", "--fail", "-o", copy.path, url.absoluteString]
            return await compare(rounds: rounds, curl: arguments, afterCurl: { synchronize(copy) }) { client in
                _ = try await client.request(
                    TransferProbe.Target(baseURL: url, method: .get, requestType: .download(.file(destination))))
                let size = Self.size(of: destination)
                try? FileManager.default.removeItem(at: destination)
                try? FileManager.default.removeItem(at: copy)
                return size
            }
        }

        static func upload(_ file: URL, to url: URL, rounds: Int) async -> Int32 {
            // No `Expect: 100-continue`, which NAL does not send either: the server would be waited for a second.
            let curl = ["--silent", "--fail", "-H", "Expect:", "-o", "/dev/null", "-T", file.path, url.absoluteString]
            return await compare(rounds: rounds, curl: curl) { client in
                _ = try await client.request(
                    TransferProbe.Target(baseURL: url, method: .put, requestType: .uploadFile(file)))
                return Self.size(of: file)
            }
        }

        /// Flushes `file` and its directory to disk, as NAL does before it moves a download into place.
        private static func synchronize(_ file: URL) {
            for path in [file.path, file.deletingLastPathComponent().path] {
                let descriptor = open(path, O_RDONLY)
                guard descriptor >= 0 else { continue }
                fsync(descriptor)
                close(descriptor)
            }
        }

        private static func compare(
            rounds: Int, curl arguments: [String], afterCurl: () -> Void = {},
            nal transfer: (Client<TransferProbe.Target>) async throws -> Int64
        ) async -> Int32 {
            guard let executable = CurlCommandLine.executable else {
                FileHandle.standardError.write(Data("Error: no curl on the PATH\n".utf8))
                return 1
            }
            var nal: [Double] = []
            var curl: [Double] = []
            var size: Int64 = 0
            let clock = ContinuousClock()
            do {
                let client = Client<TransferProbe.Target>(transport: try CurlTransport())
                for round in 0..<rounds {
                    for side in round % 2 == 0 ? [0, 1] : [1, 0] {
                        let start = clock.now
                        if side == 0 {
                            size = try await transfer(client)
                        } else {
                            try await CurlCommandLine.run(executable, arguments)
                            afterCurl()
                        }
                        let megabytesPerSecond =
                            Double(size) / (Double((clock.now - start).nanoseconds) / 1e9) / 1e6
                        if side == 0 { nal.append(megabytesPerSecond) } else { curl.append(megabytesPerSecond) }
                    }
                }
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                return 1
            }
            return TransferProbe.print(
                Report(
                    bytes: size, nalMegabytesPerSecond: nal, curlMegabytesPerSecond: curl,
                    ratio: TransferProbe.median(nal) / TransferProbe.median(curl)))
        }

        private static func size(of file: URL) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? NSNumber)?.int64Value ?? 0
        }
    }
#endif
