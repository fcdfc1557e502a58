import GRDB

/// The terms of a SQLite index for ``DenseEvaluator``: `label_postings` (compact blocks of a
/// label's images, see ``Postings``) scanned as the evaluator asks, single images probed in
/// `observations`' primary key, and facet counts from the postings or the packed labels.
///
/// Usage: `let scores = try DenseEvaluator(source: SQLitePostings(db: db), total: n).evaluate(plan)`
struct SQLitePostings: DenseTermSource {
    let db: Database
    let size: Int

    /// Usage: `let source = try SQLitePostings(db: db)`
    init(db: Database) throws {
        self.db = db
        size = (try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0) + 1
    }

    /// Looks each current match up in the term's primary key (`observations`).
    func probe(_ match: LabelMatch, _ scores: inout [UInt16], keepMatches: Bool) throws -> Int? {
        let statement = try db.cachedStatement(
            sql: "SELECT best FROM observations WHERE label_id = ? AND image_id = ? AND best >= ?")
        var remaining = 0
        for index in scores.indices where scores[index] != 0 {
            var best = -1
            for root in match.roots {
                let found = try RawScan.firstInt(statement, root, Int64(index), Int64(match.threshold))
                if let found { best = max(best, found) }
            }
            let matched = best >= 0
            if matched == keepMatches {
                if keepMatches { scores[index] = DenseEvaluator.both(scores[index], UInt16(best + 1)) }
                remaining += 1
            } else {
                scores[index] = 0
            }
        }
        return remaining
    }

    func scan(_ label: Int64, threshold: Int, into scores: inout [UInt16]) throws {
        let statement = try db.cachedStatement(sql: "SELECT block, entries FROM label_postings WHERE label_id = ?")
        let size = self.size
        try scores.withUnsafeMutableBufferPointer { buffer in
            try RawScan.forEachRow(statement, arguments: [label]) { handle in
                Postings.forEach(block: RawScan.int(handle, 0), RawScan.blob(handle, 1)) { image, best in
                    guard image < size, best >= threshold else { return }
                    let score = UInt16(best + 1)
                    if score > buffer[image] { buffer[image] = score }
                }
            }
        }
    }

    /// Clears the images whose number of stored faces is outside `counts` (or not looked for).
    func keepFaces(_ counts: ClosedRange<Int>, _ scores: inout [UInt16]) throws {
        var enough = [Bool](repeating: false, count: size)
        let statement = try db.cachedStatement(sql: "SELECT image_id FROM image_faces WHERE face_count BETWEEN ? AND ?")
        let size = self.size
        try RawScan.forEachRow(statement, arguments: [counts.lowerBound, counts.upperBound]) { handle in
            let image = RawScan.int(handle, 0)
            if image < size { enough[image] = true }
        }
        for index in scores.indices where !enough[index] { scores[index] = 0 }
    }

    func universe() throws -> [UInt16] {
        var scores = [UInt16](repeating: 0, count: size)
        let statement = try db.cachedStatement(sql: "SELECT id FROM images WHERE error_stage IS NULL")
        let size = self.size
        try scores.withUnsafeMutableBufferPointer { buffer in
            try RawScan.forEachRow(statement, arguments: []) { handle in
                let image = RawScan.int(handle, 0)
                if image < size { buffer[image] = DenseEvaluator.scoreless }
            }
        }
        return scores
    }

    /// Counts, for the labels that can be among the `top` most frequent, the
    /// matching images on which the label's `best` reaches `threshold`, or, when
    /// `calibrated` is given, the label's own threshold in it (labels absent from
    /// it are never counted).
    ///
    /// Many matches: labels are read from their postings in decreasing image
    /// count; once `top` labels have counts above the next label's image count,
    /// no later label can enter the top and the rest are skipped. Few matches:
    /// the matches' packed labels, fetched by a JSON id list joined to
    /// `image_labels` in rowid order (~0.5 µs per match). Labels absent from the
    /// result are either zero or cannot reach the top.
    func facetCounts(
        _ scores: [UInt16], threshold: Int, calibrated: [Int64: Int]? = nil, top: Int,
        scanPostingsAbove: Int = 50_000
    ) throws -> [Int64: Int] {
        func required(for label: Int64) -> Int {
            guard let calibrated else { return threshold }
            return calibrated[label] ?? Int.max
        }
        let matches = scores.reduce(0) { $0 + ($1 != 0 ? 1 : 0) }
        var counts: [Int64: Int] = [:]
        if matches > scanPostingsAbove {
            // Membership as a bitset (125 KB for a million images) stays in the
            // CPU cache while millions of entries are tested against it; the
            // score array (2 MB) does not, and cost 3x as much.
            var bits = [UInt64](repeating: 0, count: scores.count / 64 + 1)
            for (index, value) in scores.enumerated() where value != 0 { bits[index >> 6] |= 1 << UInt64(index & 63) }
            let labels = try Row.fetchAll(
                db, sql: "SELECT id, image_count FROM labels WHERE image_count > 0 ORDER BY image_count DESC, id")
            let statement = try db.cachedStatement(sql: "SELECT block, entries FROM label_postings WHERE label_id = ?")
            var best: [Int] = []  // the `top` highest counts so far, ascending
            try bits.withUnsafeBufferPointer { bits in
                for row in labels {
                    let label: Int64 = row[0]
                    let bound: Int = row[1]
                    if best.count >= top, let lowest = best.first, lowest > bound { break }
                    let threshold = required(for: label)
                    guard threshold != Int.max else { continue }
                    var count = 0
                    try RawScan.forEachRow(statement, arguments: [label]) { handle in
                        Postings.forEach(block: RawScan.int(handle, 0), RawScan.blob(handle, 1)) { image, value in
                            guard value >= threshold, image >> 6 < bits.count else { return }
                            count += Int((bits[image >> 6] >> UInt64(image & 63)) & 1)
                        }
                    }
                    guard count > 0 else { continue }
                    counts[label] = count
                    best.insert(count, at: best.firstIndex { $0 > count } ?? best.count)
                    if best.count > top { best.removeFirst() }
                }
            }
            return counts
        }
        // Per-label thresholds as an array for the hot loop (Int.max: never counted).
        var thresholds = [Int](repeating: threshold, count: 4096)
        if let calibrated {
            thresholds = [Int](repeating: Int.max, count: 4096)
            for (label, value) in calibrated where label >= 0 && label < thresholds.count { thresholds[Int(label)] = value }
        }
        var dense = [Int32](repeating: 0, count: 4096)
        // The ids, ascending, as one JSON parameter: SQLite walks them and
        // looks each row up in rowid order.
        var json = [UInt8]()
        json.reserveCapacity(matches * 8 + 2)
        json.append(UInt8(ascii: "["))
        for (index, value) in scores.enumerated() where value != 0 {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: String(index).utf8)
        }
        json.append(UInt8(ascii: "]"))
        let statement = try db.cachedStatement(sql: """
            SELECT il.packed FROM json_each(?) AS e CROSS JOIN image_labels AS il ON il.image_id = e.value
            """)
        try RawScan.forEachRow(statement, arguments: [String(decoding: json, as: UTF8.self)]) { handle in
            PackedLabels.forEach(RawScan.blob(handle, 0)) { labelID, best, _ in
                guard best >= (labelID < thresholds.count ? thresholds[labelID] : required(for: Int64(labelID))) else {
                    return
                }
                if labelID < dense.count { dense[labelID] += 1 } else { counts[Int64(labelID), default: 0] += 1 }
            }
        }
        for (labelID, count) in dense.enumerated() where count > 0 { counts[Int64(labelID)] = Int(count) }
        return counts
    }
}
