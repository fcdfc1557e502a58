/// FNV-1a, 64 bits: a small hash whose values never change between builds or runs (unlike the
/// standard library's seeded `Hasher`), for what is stored or compared across runs: snapshot
/// checksums, people fingerprints, the number of the photo a face is in.
///
/// ```swift
/// var hash = FNV1a()
/// hash.mix("rules 2;".utf8)
/// let text = String(hash.value, radix: 16)
/// ```
package struct FNV1a: Sendable {
    /// The hash of everything mixed in so far (the offset basis before anything is).
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Usage: `var hash = FNV1a()`
    package init() {}

    /// Mixes in one byte. Usage: `hash.mix(UInt8(half & 0xFF))`
    @inline(__always)
    package mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    /// Mixes in bytes in order. Usage: `hash.mix(contentHash.utf8)`
    package mutating func mix(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { mix(byte) }
    }
}
