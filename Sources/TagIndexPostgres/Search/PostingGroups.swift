import TagIndex

/// The rows of PostgreSQL's `label_posting_groups`: a label's posting blocks (SQLite's entry
/// format, see ``Postings``) for a group of 16 consecutive blocks (65,536 image ids) in one value.
///
/// A row per label and block, as SQLite keeps them, made a search of a label with a large
/// subtree read tens of thousands of rows of ~120 bytes (18,200 for the 75 labels under one top
/// category of the 1,000,000-image benchmark), and receiving them one by one cost the client
/// more than everything else the search did. Sixteen blocks per row cut that sixteenfold.
///
/// Format: records of `block` (UInt32, little-endian), the entries' byte count (UInt32,
/// little-endian) and the block's entries, blocks ascending; a block with no entry for the label
/// has no record.
///
/// Usage:
/// ```swift
/// var row: [UInt8] = []
/// PostingGroups.append(block: 17, entries: entries, to: &row)
/// PostingGroups.forEachBlock(row) { block, entries in Postings.forEach(block: block, entries) { image, best in ... } }
/// ```
enum PostingGroups {
    /// log2 of the blocks per group.
    static let blockShift = 4
    /// Image id >> `imageShift` = the image's group.
    static let imageShift = Postings.blockShift + blockShift

    /// Appends one block's entries to a row.
    static func append(block: Int64, entries: [UInt8], to row: inout [UInt8]) {
        for value in [UInt32(truncatingIfNeeded: block), UInt32(entries.count)] {
            withUnsafeBytes(of: value.littleEndian) { row.append(contentsOf: $0) }
        }
        row.append(contentsOf: entries)
    }

    /// Calls `body(block, entries)` for each block of a row; stops at a record that runs past
    /// the end (a damaged value).
    @inline(__always)
    static func forEachBlock(_ row: UnsafeRawBufferPointer, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while offset + 8 <= row.count {
            let block = Int(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let count = Int(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            offset += 8
            guard offset + count <= row.count else { return }
            body(block, UnsafeRawBufferPointer(rebasing: row[offset..<offset + count]))
            offset += count
        }
    }
}
