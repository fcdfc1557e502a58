import Foundation
import GRDB

/// `label_postings`: each label's images as compact sorted blocks, so a search
/// reads a label's 400,000 images from ~250 rows instead of 400,000.
///
/// Row `(label_id, block)` covers image ids `block << 12 ..< (block + 1) << 12`;
/// `entries` holds, sorted by image id, 4 bytes per image: the id's low 12 bits
/// (UInt16 LE) and `best` (UInt16 LE). It mirrors `observations(label_id,
/// image_id, best)` exactly; every writer keeps both in the same transaction.
package enum Postings {
    package static let blockShift = 12
    package static let blockMask = (1 << blockShift) - 1

    /// Decoded entries: `low << 16 | best`, sorted.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt32] {
        var entries: [UInt32] = []
        entries.reserveCapacity(bytes.count / 4)
        var offset = 0
        while offset + 4 <= bytes.count {
            let low = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            let best = UInt32(bytes[offset + 2]) | UInt32(bytes[offset + 3]) << 8
            entries.append(low << 16 | best)
            offset += 4
        }
        return entries
    }

    package static func encode(_ entries: [UInt32]) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(entries.count * 4)
        for entry in entries { append(low: Int(entry >> 16), best: Int(entry & 0xFFFF), to: &bytes) }
        return Data(bytes)
    }

    /// Appends one entry (an image id's low bits and its `best`) in the row format.
    @inline(__always)
    package static func append(low: Int, best: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: low))
        bytes.append(UInt8(truncatingIfNeeded: low >> 8))
        bytes.append(UInt8(truncatingIfNeeded: best))
        bytes.append(UInt8(truncatingIfNeeded: best >> 8))
    }

    /// Calls `body(imageID, best)` for each entry of a row.
    @inline(__always)
    package static func forEach(block: Int, _ bytes: UnsafeRawBufferPointer, _ body: (Int, Int) -> Void) {
        let base = block << blockShift
        var offset = 0
        while offset + 4 <= bytes.count {
            body(base | Int(bytes[offset]) | Int(bytes[offset + 1]) << 8,
                 Int(bytes[offset + 2]) | Int(bytes[offset + 3]) << 8)
            offset += 4
        }
    }

    /// Whether the stored postings mirror `observations` exactly (a check for tests and tools).
    package static func matchObservations(_ db: Database) throws -> Bool {
        var expected: [String: [UInt32]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT label_id, image_id, best FROM observations ORDER BY label_id, image_id") {
            let image: Int = row[1]
            let best: Int = row[2]
            expected["\(row[0] as Int64)/\(image >> blockShift)", default: []]
                .append(UInt32(image & blockMask) << 16 | UInt32(best))
        }
        var stored: [String: [UInt32]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT label_id, block, entries FROM label_postings") {
            let entries: Data = row[2]
            stored["\(row[0] as Int64)/\(row[1] as Int)"] = entries.withUnsafeBytes { decode($0) }
        }
        return stored == expected
    }

    /// Rebuilds every posting from `observations`.
    package static func rebuild(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM label_postings")
        let insert = try db.makeStatement(
            sql: "INSERT INTO label_postings(label_id, block, entries) VALUES (?, ?, ?)")
        var current: (label: Int64, block: Int)? = nil
        var entries: [UInt32] = []
        func flush() throws {
            if let current, !entries.isEmpty {
                try insert.execute(arguments: [current.label, current.block, encode(entries)])
            }
            entries.removeAll(keepingCapacity: true)
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT label_id, image_id, best FROM observations ORDER BY label_id, image_id")
        while let row = try rows.next() {
            let label: Int64 = row[0]
            let image: Int = row[1]
            let best: Int = row[2]
            let key = (label, image >> blockShift)
            if current.map({ $0.label != key.0 || $0.block != key.1 }) ?? true {
                try flush()
                current = key
            }
            entries.append(UInt32(image & blockMask) << 16 | UInt32(best))
        }
        try flush()
    }
}

/// Changes to postings collected during a write transaction, applied at its end.
package struct PostingChanges {
    private struct Key: Hashable {
        package var label: Int64
        var block: Int
    }
    private var added: [Key: [Int: Int]] = [:]  // low -> best
    private var removed: [Key: Set<Int>] = [:]

    mutating func add(label: Int64, image: Int64, best: Int) {
        let key = Key(label: label, block: Int(image) >> Postings.blockShift)
        let low = Int(image) & Postings.blockMask
        added[key, default: [:]][low] = best
    }

    mutating func remove(label: Int64, image: Int64) {
        let key = Key(label: label, block: Int(image) >> Postings.blockShift)
        let low = Int(image) & Postings.blockMask
        added[key]?[low] = nil
        removed[key, default: []].insert(low)
    }

    /// Read-modify-writes each touched block.
    package func apply(_ db: Database) throws {
        let read = try db.cachedStatement(sql: "SELECT entries FROM label_postings WHERE label_id = ? AND block = ?")
        // Prepared per call, not cached: a cached statement would keep the last blob (see BatchWriter.upsert).
        let write = try db.makeStatement(sql: """
            INSERT INTO label_postings(label_id, block, entries) VALUES (?, ?, ?)
            ON CONFLICT(label_id, block) DO UPDATE SET entries = excluded.entries
            """)
        let delete = try db.cachedStatement(sql: "DELETE FROM label_postings WHERE label_id = ? AND block = ?")
        for key in Set(added.keys).union(removed.keys) {
            let stored = try Data.fetchOne(read, arguments: [key.label, key.block])
            var byLow: [Int: UInt32] = [:]
            stored?.withUnsafeBytes { bytes in
                for entry in Postings.decode(bytes) { byLow[Int(entry >> 16)] = entry }
            }
            for low in removed[key] ?? [] { byLow[low] = nil }
            for (low, best) in added[key] ?? [:] { byLow[low] = UInt32(low) << 16 | UInt32(best) }
            if byLow.isEmpty {
                if stored != nil { try delete.execute(arguments: [key.label, key.block]) }
            } else {
                try write.execute(arguments: [key.label, key.block, Postings.encode(byLow.values.sorted())])
            }
        }
    }
}
