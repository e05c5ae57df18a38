import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for one read from a spill file, mapped from the system and unmapped when the `Data` it becomes goes.
///
/// Reads of up to 256 KiB run on dispatch threads and are freed on the consumer's: from `malloc`, the arenas of
/// those threads keep the pages. A 1 GiB stream to a slow consumer grew peak RSS by 25-29 MiB with malloc'd reads and
/// by 20-23 MiB with mapped ones (`scripts/transfer-bench.sh`); mapped pages go back when the `Data` goes.
struct ReadBuffer {
    let base: UnsafeMutableRawPointer
    let count: Int

    /// Maps `count` bytes (at least one), or `nil` when the system has none.
    init?(count: Int) {
        guard count > 0 else { return nil }
        let mapped = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        base = mapped
        self.count = count
    }

    /// The bytes as `Data`, which unmaps them when it is released. Call once, or `discard()`: the buffer is then
    /// the `Data`'s.
    func data() -> Data {
        Data(bytesNoCopy: base, count: count, deallocator: .unmap)
    }

    /// Unmaps the bytes when a read failed and no `Data` will own them.
    func discard() {
        munmap(base, count)
    }
}
