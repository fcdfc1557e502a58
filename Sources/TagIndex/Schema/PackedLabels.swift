/// The `image_labels.packed` blob: for each stored observation of an image, its
/// label id (UInt32), `best` (UInt16) and `confidence` (UInt16, 0 when NULL),
/// little-endian, 8 bytes per entry. Facets, "untagged" under a calibrated
/// filter and deletions read it instead of a second index on observations.
package enum PackedLabels {
    package struct Entry {
        package var labelID: Int64
        package var best: Int
        package var confidence: Int?

        /// Memberwise, for the backends of this package.
        package init(labelID: Int64, best: Int, confidence: Int?) {
            self.labelID = labelID
            self.best = best
            self.confidence = confidence
        }
    }

    package static func pack(_ entries: [Entry]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(entries.count * 8)
        for entry in entries {
            let id = UInt32(truncatingIfNeeded: entry.labelID)
            let confidence = entry.confidence ?? 0
            bytes.append(UInt8(truncatingIfNeeded: id))
            bytes.append(UInt8(truncatingIfNeeded: id >> 8))
            bytes.append(UInt8(truncatingIfNeeded: id >> 16))
            bytes.append(UInt8(truncatingIfNeeded: id >> 24))
            bytes.append(UInt8(truncatingIfNeeded: entry.best))
            bytes.append(UInt8(truncatingIfNeeded: entry.best >> 8))
            bytes.append(UInt8(truncatingIfNeeded: confidence))
            bytes.append(UInt8(truncatingIfNeeded: confidence >> 8))
        }
        return bytes
    }

    /// Calls `body(labelID, best, confidence)` for each entry (confidence 0 when not observed).
    @inline(__always)
    package static func forEach(_ bytes: UnsafeRawBufferPointer, _ body: (Int, Int, Int) -> Void) {
        var offset = 0
        while offset + 8 <= bytes.count {
            let id = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
                | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            let best = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            let confidence = Int(bytes[offset + 6]) | Int(bytes[offset + 7]) << 8
            body(id, best, confidence)
            offset += 8
        }
    }
}
