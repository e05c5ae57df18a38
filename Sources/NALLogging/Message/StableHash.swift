/// A hash that is the same for the same text in every run and process (unlike `Hasher`, which is seeded per
/// process), so that masked values can be correlated across logs. 64-bit FNV-1a over the UTF-8 bytes.
enum StableHash {
    static func hex(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
