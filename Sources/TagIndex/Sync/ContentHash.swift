import Foundation

/// A fast 64-bit non-cryptographic hash of a file's bytes, as 16 lowercase hex digits.
///
/// It detects changed content and finds moved files; it is not a defense against
/// crafted collisions. Design: four 64-bit lanes consume 32-byte stripes a word
/// (little-endian) at a time with multiply-rotate rounds; the tail is consumed a
/// word, then a byte-packed word, at a time; the length is folded in and the state
/// is finished with an xorshift-multiply avalanche. The constants are the 64-bit
/// golden ratio and two odd mixing constants from xxHash64/MurmurHash3. The output
/// is stable across platforms and versions: tests pin values.
///
/// ```swift
/// let hex = ContentHash.hex(of: Array("hello".utf8))   // 16 hex digits
/// var hasher = ContentHash(); hasher.update(chunk1); hasher.update(chunk2)
/// let sameHex = hasher.finalizeHex()
/// ```
public struct ContentHash: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (prime1, prime2, prime3, prime1 ^ prime2)
    /// The bytes of an unfinished stripe (the first `pendingCount`), kept inline: no allocation.
    private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// Creates an empty hasher.
    ///
    /// ```swift
    /// var hasher = ContentHash()
    /// ```
    public init() {}

    /// Hashes `bytes` in one call.
    ///
    /// ```swift
    /// let hex = ContentHash.hex(of: data)
    /// ```
    public static func hex(of bytes: some Collection<UInt8>) -> String {
        var hasher = ContentHash()
        hasher.update(Array(bytes))
        return hasher.finalizeHex()
    }

    /// Hashes the file at `url`, reading it in 1 MiB chunks.
    ///
    /// ```swift
    /// let hex = try ContentHash.hex(ofFileAt: URL(fileURLWithPath: "/photos/a.jpg"))
    /// ```
    public static func hex(ofFileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = ContentHash()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(chunk)
        }
        return hasher.finalizeHex()
    }

    /// Feeds more bytes.
    ///
    /// ```swift
    /// hasher.update(chunk)
    /// ```
    public mutating func update(_ bytes: some Collection<UInt8>) {
        // In place when the bytes are contiguous (arrays, Data, native strings' UTF-8): the
        // taxonomy's fingerprint feeds thousands of short fields, so no copy per call.
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) != nil { return }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    private mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        guard var next = bytes.baseAddress else { return }
        var count = bytes.count
        if pendingCount > 0 {
            let taken = min(32 - pendingCount, count)
            withUnsafeMutableBytes(of: &pending) { stripe in
                stripe.baseAddress!.advanced(by: pendingCount).copyMemory(from: next, byteCount: taken)
            }
            pendingCount += taken
            next += taken
            count -= taken
            guard pendingCount == 32 else { return }
            withUnsafeBytes(of: pending) { Self.consumeStripes($0, into: &lanes) }
            pendingCount = 0
        }
        let whole = count & ~31
        Self.consumeStripes(UnsafeRawBufferPointer(start: next, count: whole), into: &lanes)
        withUnsafeMutableBytes(of: &pending) { stripe in
            stripe.baseAddress!.copyMemory(from: next + whole, byteCount: count - whole)
        }
        pendingCount = count - whole
    }

    /// The 64-bit hash of everything fed so far.
    ///
    /// ```swift
    /// let value: UInt64 = hasher.finalize()
    /// ```
    public func finalize() -> UInt64 {
        var hash =
            Self.rotate(lanes.0, 1) &+ Self.rotate(lanes.1, 7) &+ Self.rotate(lanes.2, 12) &+ Self.rotate(lanes.3, 18)
        hash = Self.mergeLane(hash, lanes.0)
        hash = Self.mergeLane(hash, lanes.1)
        hash = Self.mergeLane(hash, lanes.2)
        hash = Self.mergeLane(hash, lanes.3)
        hash &+= length &* Self.prime3
        withUnsafeBytes(of: pending) { stripe in
            let tail = UnsafeRawBufferPointer(rebasing: stripe.prefix(pendingCount))
            var offset = 0
            while offset + 8 <= tail.count {
                let word = UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                hash = Self.rotate(hash ^ Self.round(0, word), 27) &* Self.prime1 &+ Self.prime3
                offset += 8
            }
            if offset < tail.count {
                var word: UInt64 = 0
                for (shift, byte) in tail[offset...].enumerated() { word |= UInt64(byte) << (8 * UInt64(shift)) }
                hash = Self.rotate(hash ^ (word &* Self.prime1), 23) &* Self.prime2
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        hash ^= hash >> 32
        return hash
    }

    /// The hash as 16 lowercase hex digits.
    ///
    /// ```swift
    /// let hex = hasher.finalizeHex()
    /// ```
    public func finalizeHex() -> String {
        let hex = String(finalize(), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func consumeStripes(_ buffer: UnsafeRawBufferPointer, into lanes: inout (UInt64, UInt64, UInt64, UInt64)) {
        var (v0, v1, v2, v3) = lanes
        var offset = 0
        while offset + 32 <= buffer.count {
            v0 = round(v0, UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            v1 = round(v1, UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            v2 = round(v2, UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
            v3 = round(v3, UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            offset += 32
        }
        lanes = (v0, v1, v2, v3)
    }

    @inline(__always) private static func round(_ accumulator: UInt64, _ word: UInt64) -> UInt64 {
        rotate(accumulator &+ word &* Self.prime2, 31) &* Self.prime1
    }

    @inline(__always) private static func mergeLane(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* Self.prime1 &+ Self.prime3
    }

    @inline(__always) private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
