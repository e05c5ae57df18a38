package import Foundation
package import NALCore
package import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Files and digests for transfer tests.
package enum TransferFiles {
    /// The size of the big transfers: 1 GiB, or `NAL_TRANSFER_TEST_BYTES`.
    package static let bigSize: Int64 =
        ProcessInfo.processInfo.environment["NAL_TRANSFER_TEST_BYTES"].flatMap { Int64($0) } ?? 1 << 30

    /// Whether this run includes the transfer tests against the test server: `scripts/test.sh` runs them in a pass
    /// of their own, since they keep both cores and the disk busy.
    package static let bigTransfersEnabled = ProcessInfo.processInfo.environment["NAL_BIG_TRANSFERS"] == "1"

    package static let bigTransfersSkipReason: Comment =
        "the big transfers run in their own pass of scripts/test.sh (NAL_BIG_TRANSFERS=1)"

    /// A new directory under the temporary directory, for one test.
    package static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `size` pseudo-random bytes to `url`: a random block of an odd length, repeated, so that a byte
    /// moved to the wrong place changes the digest.
    package static func writeFile(_ url: URL, size: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let length = (1 << 20) + 13
        // One read from the kernel's generator: filling a block byte by byte is slow in debug builds, and tests
        // run on the cooperative thread pool, which a slow synchronous loop starves.
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        var block = try random.read(upToCount: length) ?? Data()
        guard block.count == length else { throw CocoaError(.fileReadUnknown) }
        block.append(block)
        var written: Int64 = 0
        while written < size {
            let offset = Int(written % Int64(length))
            let count = Int(min(Int64(length), size - written))
            try handle.write(contentsOf: block[offset..<(offset + count)])
            written += Int64(count)
        }
    }

    /// The SHA-256 of a file, by coreutils' `sha256sum` (Foundation has no SHA-256 on Linux).
    package static func sha256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// Progress events and the response of one `transfer(_:)`.
    package static func collect<Service: RemoteService>(
        _ client: Client<Service>, _ target: Service
    ) async throws -> (progress: [TransferProgress], response: Response) {
        var events: [TransferProgress] = []
        for try await event in client.transfer(target) {
            switch event {
            case .progress(let progress): events.append(progress)
            case .completed(let response): return (events, response)
            }
        }
        throw NALError.cancelled
    }

    /// Whether progress values only grow, in bytes and in fraction.
    package static func isMonotonic(_ events: [TransferProgress]) -> Bool {
        zip(events, events.dropFirst()).allSatisfy { earlier, later in
            later.bytesSent >= earlier.bytesSent && later.bytesReceived >= earlier.bytesReceived
                && (later.fractionCompleted ?? 0) >= (earlier.fractionCompleted ?? 0)
        }
    }
}

extension FaultServer {
    /// What `/sink` answers.
    package struct Sink: Decodable, Sendable {
        package var bytes: Int64?
        package var sha256: String?
        package var parts: [Part]?

        package struct Part: Decodable, Sendable {
            package var name: String?
            package var filename: String?
            package var contentType: String?
            package var bytes: Int64
            package var sha256: String
        }
    }

    /// What `/source/<N>?digest=1` answers.
    package struct SourceDigest: Decodable, Sendable {
        package var sha256: String
        package var etag: String
        package var bytes: Int64
    }

    /// The digest of `/source/<size>` with the content named `etag`.
    package static func sourceDigest(size: Int64, etag: String = "v1") async throws -> SourceDigest {
        guard let url else { throw URLError(.badURL) }
        let digestURL = url.appendingPathComponent("source/\(size)")
        var components = URLComponents(url: digestURL, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "digest", value: "1"), URLQueryItem(name: "etag", value: etag)]
        let (data, _) = try await URLSession.shared.data(from: components?.url ?? digestURL)
        return try JSONDecoder().decode(SourceDigest.self, from: data)
    }
}
