import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a streamed body that wait on disk while its consumer lags behind a producer that cannot be held
/// back (URLSession on Linux, whose transfers cannot be paused: see `StreamedBody.makeStream(highWater:spillsToDisk:)`).
///
/// The file has no name anyone can use: it is created under a random name with `O_EXCL|O_NOFOLLOW`, mode 0600, and
/// unlinked at once, so it disappears with its descriptor, even if the process dies. Ranges the consumer has read are
/// given back to the file system as it goes, so the disk holds about what the consumer lags, not all that passed.
///
/// One producer writes (`append`, at offsets only it advances) while the consumer reads ranges already written;
/// `pread`/`pwrite` at distinct offsets need no lock.
final class SpillFile: @unchecked Sendable {
    /// A range of the file that holds body bytes, in order.
    struct Extent: Sendable {
        var offset: Int64
        var count: Int
    }

    private let descriptor: Int32
    /// Where the file was created, for errors; it no longer exists there.
    let url: URL
    /// The producer's write offset; only the producer touches it.
    private var end: Int64 = 0
    /// Up to where the disk blocks were handed back. Read and written by successive reads, which run on different
    /// threads of the read queue one after another: atomic, so that the order between them is one a race detector
    /// sees too (it missed the one through the consumer's continuation).
    private let released = Atomic<Int64>(0)
    private static let readQueue = DispatchQueue(label: "dev.nal.stream-spill", attributes: .concurrent)
    /// Read ranges are handed back in steps of this many bytes.
    private static let releaseStep: Int64 = 8 << 20

    /// Creates the file in `directory` (the temporary directory by default).
    init(in directory: URL = FileManager.default.temporaryDirectory) throws(NALError) {
        let url = directory.appendingPathComponent(".nal-stream-\(UUID().uuidString)")
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(errno, url) }
        unlink(url.path)
        self.descriptor = descriptor
        self.url = url
    }

    deinit {
        // The last close frees every block the file holds, which takes a file system up to a second for a few GiB:
        // never on the thread that dropped the body, which may be a caller's, under a lock.
        let descriptor = descriptor
        Self.closing.async { close(descriptor) }
    }

    /// Where spill files are closed, one at a time.
    private static let closing = DispatchQueue(label: "dev.nal.stream-spill.close", qos: .utility)

    /// Holds back the closing of spill files while `body` runs. For tests.
    static func holdingCloses<T>(_ body: () async throws -> T) async rethrows -> T {
        closing.suspend()
        defer { closing.resume() }
        return try await body()
    }

    /// Writes `data` at the end of the file and returns where it went. Called by the producer only.
    func append(_ data: Data) throws(NALError) -> Extent {
        let start = end
        var written = 0
        let failure: Int32? = data.withUnsafeBytes { bytes -> Int32? in
            guard let base = bytes.baseAddress else { return nil }
            while written < bytes.count {
                let result = pwrite(descriptor, base + written, bytes.count - written, off_t(start) + off_t(written))
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return nil
        }
        if let failure { throw Self.failure(failure, url) }
        end += Int64(data.count)
        return Extent(offset: start, count: data.count)
    }

    /// Reads `extent` on a thread of its own (never a Swift task's), then hands what was read before it back to
    /// the file system. Called by the consumer only, in order.
    func read(_ extent: Extent) async throws(NALError) -> Data {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Data, NALError>, Never>) in
            Self.readQueue.async { continuation.resume(returning: self.readNow(extent)) }
        }
        return try result.get()
    }

    private func readNow(_ extent: Extent) -> Result<Data, NALError> {
        guard extent.count > 0 else { return .success(Data()) }
        guard let buffer = ReadBuffer(count: extent.count) else { return .failure(Self.failure(ENOMEM, url)) }
        var read = 0
        while read < extent.count {
            let result = pread(
                descriptor, buffer.base + read, extent.count - read, off_t(extent.offset) + off_t(read))
            if result < 0, errno == EINTR { continue }
            // The producer wrote this range before handing it over: a short file is a broken file system.
            guard result > 0 else {
                let code = result < 0 ? errno : EIO
                buffer.discard()
                return .failure(Self.failure(code, url))
            }
            read += result
        }
        release(upTo: extent.offset + Int64(extent.count))
        return .success(buffer.data())
    }

    /// Frees the disk blocks of what the consumer has read (a hole punched in the file; its size stays).
    private func release(upTo offset: Int64) {
        #if os(Linux)
            let released = self.released.load(ordering: .acquiring)
            guard offset - released >= Self.releaseStep else { return }
            // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE. A file system without holes keeps the blocks until the
            // body ends; nothing else depends on it.
            _ = Self.punchHole?(descriptor, 0x02 | 0x01, off_t(released), off_t(offset - released))
            self.released.store(offset, ordering: .releasing)
            Self.trimHeap()
        #endif
    }

    #if os(Linux)
        /// Gives the heap's free pages back to the system, every 8 MiB read, at most ten times a second in the
        /// process. It runs on the thread that reads the spill file, never on URLSession's delegate queue.
        ///
        /// While a consumer lags, URLSession's threads allocate each chunk in their own malloc arena and free it once
        /// spilled; glibc keeps those pages, and a 1 GiB stream grew peak RSS by 34 to 48 MiB though under 3 MiB
        /// was in use (malloc_stats). With trimming (and mapped read buffers) it grew 17 to 30 MiB.
        private static func trimHeap() {
            let now = DispatchTime.now().uptimeNanoseconds
            let last = lastTrim.load(ordering: .relaxed)
            guard now &- last >= 100_000_000,
                lastTrim.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
            else { return }
            _ = mallocTrim?(0)
        }

        private static let lastTrim = Atomic<UInt64>(0)
        private typealias MallocTrim = @convention(c) (Int) -> Int32
        /// glibc's `malloc_trim`, looked up so that another C library (musl) simply goes without.
        private static let mallocTrim: MallocTrim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
            unsafeBitCast($0, to: MallocTrim.self)
        }
    #endif

    #if os(Linux)
        /// glibc's `fallocate`, which Swift's Glibc module does not import.
        private typealias Fallocate = @convention(c) (Int32, Int32, off_t, off_t) -> Int32
        private static let punchHole: Fallocate? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate").map {
            unsafeBitCast($0, to: Fallocate.self)
        }
    #endif

    private static func failure(_ code: Int32, _ url: URL) -> NALError {
        let problem: FileFailure.Problem =
            switch code {
            case ENOSPC, EDQUOT: .diskFull
            case EACCES, EPERM, EROFS: .notWritable
            case ENOENT, ENOTDIR: .missing
            default: .other(String(cString: strerror(code)))
            }
        return .file(
            FileFailure(
                role: .temporaryFile, problem: problem, url: url,
                underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)))
    }
}
