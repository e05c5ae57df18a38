#if os(Linux)
    import Foundation
    import NALCore

    /// `nal-bench transfer curl-download URL DESTINATION ROUNDS` and `curl-upload URL FILE ROUNDS`: NAL's Client over
    /// CurlTransport against the curl CLI making the same transfer (`curl -o`, `curl -T`), in interleaved rounds
    /// whose order alternates; reports both MB/s and NAL's median ratio.
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
            return await compare(rounds: rounds, curl: ["--silent", "--fail", "-o", copy.path, url.absoluteString]) {
                client in
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

        private static func compare(
            rounds: Int, curl arguments: [String],
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
