import GRDB

/// Evaluates a whole boolean query over dense per-image score arrays.
///
/// SQL answers a boolean query with one probe (a B-tree descent, ~0.4 µs) per
/// row of the driving term and operand, and sorts unions; on a million images
/// with popular terms that is a second. Here each term is read from its
/// postings (`label_postings`: ~250 rows for 400,000 images) into an array
/// indexed by image id; AND, OR and NOT are element-wise, and the first page is
/// a top-k over the result. A term much larger than what it is ANDed with is
/// probed instead of scanned. Used for confidence-ordered queries without file
/// filters, uniform or calibrated (each label of a term read with its own
/// threshold); others go through ``SQLCompiler``.
///
/// Array values: 0 no match, 1...10_001 the quantized score + 1, `scoreless`
/// for a match that carries no score (NOT, the universe).
struct DenseEvaluator {
    static let scoreless: UInt16 = 0xFFFF

    let db: Database
    let size: Int
    let total: Int

    init(db: Database, total: Int) throws {
        self.db = db
        self.total = total
        size = (try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0) + 1
    }

    /// Whether this evaluator can answer `plan`.
    static func supports(_ plan: MatchPlan) -> Bool {
        switch plan {
        case .labels, .faces, .all, .nothing: true
        case .and(let children), .or(let children): children.allSatisfy(supports)
        case .not(let child): supports(child)
        }
    }

    func evaluate(_ plan: MatchPlan) throws -> [UInt16] {
        switch plan {
        case .labels(let match):
            var scores = [UInt16](repeating: 0, count: size)
            if let calibrated = match.calibrated {
                for (label, threshold) in calibrated { try scan(label, threshold: threshold, into: &scores) }
            } else {
                for root in match.roots { try scan(root, threshold: match.threshold, into: &scores) }
            }
            return scores
        case .faces(let match):
            var scores = [UInt16](repeating: 0, count: size)
            try scan(match.labelID, threshold: match.threshold, into: &scores)
            try keepFaces(match.counts, &scores)
            return scores
        case .all:
            return try universe()
        case .nothing:
            return [UInt16](repeating: 0, count: size)
        case .not(let child):
            var scores = try universe()
            let excluded = try evaluate(child)
            for index in scores.indices where excluded[index] != 0 { scores[index] = 0 }
            return scores
        case .or(let children):
            var scores = [UInt16](repeating: 0, count: size)
            for child in children {
                let other = try evaluate(child)
                for index in scores.indices where other[index] != 0 {
                    scores[index] = Self.either(scores[index], other[index])
                }
            }
            return scores
        case .and(let children):
            return try and(children)
        }
    }

    /// OR of two non-empty-or-zero values: a real score beats "scoreless".
    @inline(__always) static func either(_ a: UInt16, _ b: UInt16) -> UInt16 {
        if a == 0 || a == scoreless { return b == 0 ? a : b }
        if b == scoreless { return a }
        return max(a, b)
    }

    /// AND of two matching values: the lower real score; "scoreless" is neutral.
    @inline(__always) static func both(_ a: UInt16, _ b: UInt16) -> UInt16 {
        if a == scoreless { return b }
        if b == scoreless { return a }
        return min(a, b)
    }

    private func and(_ children: [MatchPlan]) throws -> [UInt16] {
        let positives = children.filter { !$0.isNegation }.sorted { $0.estimate(total: total) < $1.estimate(total: total) }
        let negatives = children.compactMap { child -> MatchPlan? in
            if case .not(let operand) = child { operand } else { nil }
        }
        var scores = try positives.first.map(evaluate) ?? universe()
        var matches = scores.reduce(0) { $0 + ($1 != 0 ? 1 : 0) }
        for child in positives.dropFirst() {
            guard matches > 0 else { break }
            if let match = Self.probeable(child), matches * 8 < match.estimate {
                matches = try probe(match, &scores, keepMatches: true)
                continue
            }
            let other = try evaluate(child)
            matches = 0
            for index in scores.indices where scores[index] != 0 {
                if other[index] == 0 {
                    scores[index] = 0
                } else {
                    scores[index] = Self.both(scores[index], other[index])
                    matches += 1
                }
            }
        }
        for child in negatives {
            guard matches > 0 else { break }
            if let match = Self.probeable(child), matches * 8 < match.estimate {
                matches = try probe(match, &scores, keepMatches: false)
                continue
            }
            let other = try evaluate(child)
            for index in scores.indices where scores[index] != 0 && other[index] != 0 {
                scores[index] = 0
                matches -= 1
            }
        }
        return scores
    }

    private static func probeable(_ plan: MatchPlan) -> LabelMatch? {
        if case .labels(let match) = plan, match.calibrated == nil { return match }
        return nil
    }

    /// Looks each current match up in the term's primary key; keeps (AND) or
    /// drops (AND NOT) the images the term matches. Returns the matches left.
    private func probe(_ match: LabelMatch, _ scores: inout [UInt16], keepMatches: Bool) throws -> Int {
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
                if keepMatches { scores[index] = Self.both(scores[index], UInt16(best + 1)) }
                remaining += 1
            } else {
                scores[index] = 0
            }
        }
        return remaining
    }

    private func scan(_ label: Int64, threshold: Int, into scores: inout [UInt16]) throws {
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
    private func keepFaces(_ counts: ClosedRange<Int>, _ scores: inout [UInt16]) throws {
        var enough = [Bool](repeating: false, count: size)
        let statement = try db.cachedStatement(sql: "SELECT image_id FROM image_faces WHERE face_count BETWEEN ? AND ?")
        let size = self.size
        try RawScan.forEachRow(statement, arguments: [counts.lowerBound, counts.upperBound]) { handle in
            let image = RawScan.int(handle, 0)
            if image < size { enough[image] = true }
        }
        for index in scores.indices where !enough[index] { scores[index] = 0 }
    }

    private func universe() throws -> [UInt16] {
        var scores = [UInt16](repeating: 0, count: size)
        let statement = try db.cachedStatement(sql: "SELECT id FROM images WHERE error_stage IS NULL")
        let size = self.size
        try scores.withUnsafeMutableBufferPointer { buffer in
            try RawScan.forEachRow(statement, arguments: []) { handle in
                let image = RawScan.int(handle, 0)
                if image < size { buffer[image] = Self.scoreless }
            }
        }
        return scores
    }

    /// The result count and the `count` best (score desc, image id desc) from `offset`.
    static func page(_ scores: [UInt16], offset: Int, count: Int) -> (total: Int, page: [(id: Int64, score: Int?)]) {
        let wanted = offset + count
        // Min-heap of the best `wanted` keys: rank << 32 | image id.
        var heap: [UInt64] = []
        heap.reserveCapacity(wanted + 1)
        var total = 0
        for (index, value) in scores.enumerated() where value != 0 {
            total += 1
            let rank = UInt64(value == scoreless ? 0 : value)
            let key = rank << 32 | UInt64(index)
            if heap.count < wanted {
                heap.append(key)
                siftUp(&heap, heap.count - 1)
            } else if let smallest = heap.first, key > smallest {
                heap[0] = key
                siftDown(&heap, 0)
            }
        }
        let ordered = heap.sorted(by: >)
        let page = ordered.dropFirst(offset).prefix(count).map { key -> (id: Int64, score: Int?) in
            let rank = Int(key >> 32)
            return (Int64(key & 0xFFFF_FFFF), rank == 0 ? nil : rank - 1)
        }
        return (total, page)
    }

    private static func siftUp(_ heap: inout [UInt64], _ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func siftDown(_ heap: inout [UInt64], _ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
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
