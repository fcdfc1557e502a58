/// The `image_labels.packed` blob: for each stored observation of an image, its
/// label id (UInt32) and `best` (UInt16), little-endian, 6 bytes per entry.
enum PackedLabels {
    static func pack(_ entries: [(labelID: Int64, best: Int)]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(entries.count * 6)
        for (labelID, best) in entries {
            let id = UInt32(truncatingIfNeeded: labelID)
            bytes.append(UInt8(truncatingIfNeeded: id))
            bytes.append(UInt8(truncatingIfNeeded: id >> 8))
            bytes.append(UInt8(truncatingIfNeeded: id >> 16))
            bytes.append(UInt8(truncatingIfNeeded: id >> 24))
            bytes.append(UInt8(truncatingIfNeeded: best))
            bytes.append(UInt8(truncatingIfNeeded: best >> 8))
        }
        return bytes
    }

    /// Calls `body(labelID, best)` for each entry.
    @inline(__always)
    static func forEach(_ bytes: UnsafeRawBufferPointer, _ body: (Int, Int) -> Void) {
        var offset = 0
        while offset + 6 <= bytes.count {
            let id = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
                | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            let best = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            body(id, best)
            offset += 6
        }
    }
}
