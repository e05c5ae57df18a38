package import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One download to its destination: the partial file beside it, resuming after an interruption, and the atomic
/// move into place. It decides where each response's body goes (`BodyRouting`): a success goes to the file, and
/// anything else (a 404, a redirect) stays in memory for the caller to see. Both `URLSessionTransport` and
/// `StubTransport` run downloads through it.
package final class DownloadJob: BodyRouting {
    struct State: Sendable {
        /// The destination, once resolved.
        var destination: URL?
        var writer: FileWriter?
        /// Whether the destination is a character device written as it is, with no partial file.
        var intoDevice = false
        /// Where the current exchange asked the body to start (`Range: bytes=N-`); 0 for the whole body.
        var requestedOffset: Int64 = 0
        /// The strong ETag or Last-Modified of the file being written, for `If-Range`.
        var validator: String?
        /// Whether the server serves byte ranges of this file.
        var acceptsRanges = false
        /// Whether the server answered in a way that another attempt would not change (a wrong range).
        var brokeProtocol = false
        /// The whole file's size, once a response said it (Content-Length of a 200, the total of a 206).
        var expectedTotal: Int64?
        /// The size the file must reach with this response: where its range ends, or its Content-Length.
        var expectedEnd: Int64?
        /// The record last written for the file, so that it is not written again unchanged.
        var record: ResumeRecord?
    }

    /// What a download makes of a final response (not a redirect).
    package enum Conclusion: Sendable {
        /// The file is in place; the response to report (a synthesized 200 when a 416 said the kept partial file
        /// was already complete).
        case downloaded(URL, HTTPURLResponse)
        /// The kept partial file was not what the server has: it is gone, and the download starts again.
        case restart
        /// No file: the response (a 404, say) is the answer, with its body in memory.
        case notDownloaded
    }

    /// Interruptions one call resumes from at most.
    static let maximumResumes = 20

    let spec: DownloadDestination
    /// The URL and, for a fixed destination, its path: what finds a resume record.
    let recordKey: String
    /// Where the resume record lives, when the destination is resumable.
    let recordDirectory: URL?
    let state: Locked<State>

    /// How long a download waits for another call that still writes the partial file it would resume (a call just
    /// cancelled, cleaning up) before it starts a file of its own.
    static let claimPatience: Duration = .seconds(1)

    /// A job for downloading `request` to `destination`. A `.resumable` destination looks for a partial file that
    /// an earlier call kept, through its record in the destination's directory, and claims it (an exclusive lock):
    /// while another call still writes that file, it waits up to `claimPatience`, then starts a file of its own.
    package static func make(_ destination: DownloadDestination, for request: URLRequest) async -> DownloadJob {
        let recordKey = (request.url?.absoluteString ?? "") + "\n" + (destination.knownFile?.path ?? "")
        var directory: URL?
        if destination.options.contains(.resumable), let url = request.url {
            directory =
                destination.knownDirectory
                ?? HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil).map {
                    destination.url(for: $0).deletingLastPathComponent()
                }
        }
        var kept: (ResumeRecord, FileWriter)?
        if let directory {
            let giveUp = ContinuousClock.now + claimPatience
            claiming: while true {
                let claimed = (try? await FileAccess.offThread { claim(recordKey, in: directory) }) ?? .nothing
                switch claimed {
                case .claimed(let record, let writer):
                    kept = (record, writer)
                    break claiming
                case .nothing:
                    break claiming
                case .busy:
                    guard ContinuousClock.now < giveUp, (try? await Task.sleep(for: .milliseconds(10))) != nil else {
                        break claiming
                    }
                }
            }
        }
        return DownloadJob(destination, recordKey: recordKey, recordDirectory: directory, kept: kept)
    }

    init(
        _ destination: DownloadDestination, recordKey: String, recordDirectory: URL?, kept: (ResumeRecord, FileWriter)?
    ) {
        spec = destination
        self.recordKey = recordKey
        self.recordDirectory = recordDirectory
        var initial = State()
        if let (record, writer) = kept {
            initial.writer = writer
            initial.destination = URL(fileURLWithPath: record.destination)
            initial.validator = record.validator
            initial.acceptsRanges = true
            initial.requestedOffset = writer.size
            initial.expectedTotal = record.total
            initial.record = record
        }
        state = Locked(initial)
    }

    enum Claim: Sendable {
        case claimed(ResumeRecord, FileWriter)
        /// Another call holds the file.
        case busy
        case nothing
    }

    /// The kept partial file the record for `recordKey` names, opened and locked: only if it is still the same
    /// regular file of this user, with bytes in it, and the record still names it once the lock is ours (its last
    /// writer may have finished or thrown it away meanwhile).
    static func claim(_ recordKey: String, in directory: URL) -> Claim {
        guard let record = ResumeRecord.read(for: recordKey, in: directory),
            URL(fileURLWithPath: record.destination).deletingLastPathComponent().standardizedFileURL.path
                == directory.standardizedFileURL.path,
            let writer = try? FileWriter(
                url: directory.appendingPathComponent(record.partialName), role: .temporaryFile,
                mode: .appendToOwnFile),
            writer.identity == (record.device, record.inode)
        else { return .nothing }
        guard writer.tryLock() else {
            writer.abandon()
            return .busy
        }
        // Locked: re-read the record, which the last writer completes (with `changed`) before it lets go.
        var info = stat()
        guard let current = ResumeRecord.read(for: recordKey, in: directory), current.partialName == record.partialName,
            current.changed != nil, current.changed == writer.statusChangeTime, stat(writer.url.path, &info) == 0,
            (UInt64(info.st_dev), UInt64(info.st_ino)) == writer.identity, writer.size > 0
        else {
            writer.abandon()
            return .nothing
        }
        return .claimed(current, writer)
    }
}
