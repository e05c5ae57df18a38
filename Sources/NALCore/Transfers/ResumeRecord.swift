import Foundation
import NALSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a kept partial file needs to be resumed, in a small JSON file in the destination's directory whose name
/// comes from the URL (`.nal-resume-<hash>`), so that it is found before any response has named the destination.
///
/// It names the partial file and its device, inode and status-change time: a resumed download reopens that file only
/// if it is still the same regular file, owned by this user; a record or partial file that anyone replaced (with a link, or a file
/// of their own) is ignored, never followed.
struct ResumeRecord: Codable, Equatable {
    /// The URL downloaded.
    let source: String
    /// The strong ETag or Last-Modified of what was downloaded, for `If-Range`.
    let validator: String
    /// Where the file goes once complete.
    let destination: String
    /// The partial file's name, in the same directory.
    let partialName: String
    let device: UInt64
    let inode: UInt64
    /// The whole file's size, when a response said it: a 416 that calls a shorter file complete is not believed.
    var total: Int64?
    /// The partial file's `st_ctime` (seconds, nanoseconds) when its download stopped; `nil` while a download still
    /// writes it. A file is resumed only when it matches: another file in its place may reuse the inode number.
    var changed: [Int64]?

    /// The largest record read; anything bigger is not one of NAL's.
    static let maximumSize = 64 * 1024

    /// The record's file for `source` in `directory`.
    static func url(for source: String, in directory: URL) -> URL {
        directory.appendingPathComponent(".nal-resume-" + String(SHA256.hex(of: Array(source.utf8)).prefix(24)))
    }

    /// The record for `source` in `directory`, if there is a readable one of NAL's for it.
    static func read(for source: String, in directory: URL) -> ResumeRecord? {
        let file = url(for: source, in: directory)
        let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_size <= maximumSize
        else { return nil }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, Int(info.st_size)) }
        guard count == Int(info.st_size),
            let record = try? JSONDecoder().decode(ResumeRecord.self, from: data), record.source == source,
            !record.partialName.contains("/")
        else { return nil }
        return record
    }

    /// Saves the record: written to a new file of its own, then renamed over the old record.
    func write(in directory: URL) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        let target = Self.url(for: source, in: directory)
        let temporary = directory.appendingPathComponent(".nal-resume-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { writeBytes(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written != data.count || rename(temporary.path, target.path) != 0 { unlink(temporary.path) }
    }

    /// Removes the record for `source` in `directory`.
    static func remove(for source: String, in directory: URL) {
        unlink(url(for: source, in: directory).path)
    }
}

// File-level, where `read` and `write` are the system's and not the record's methods.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func writeBytes(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
