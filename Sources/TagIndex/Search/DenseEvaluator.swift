/// Evaluates a whole boolean query over dense per-image score arrays.
///
/// SQL answers a boolean query with one probe (a B-tree descent, ~0.4 µs) per
/// row of the driving term and operand, and sorts unions; on a million images
/// with popular terms that is a second. Here each term is read from its
/// postings (compact blocks of a label's images: ~250 rows for 400,000 images)
/// into an array indexed by image id; AND, OR and NOT are element-wise, and the
/// first page is a top-k over the result. A term much larger than what it is
/// ANDed with is probed instead of scanned where the source can probe. Used for
/// confidence-ordered queries without file filters, uniform or calibrated (each
/// label of a term read with its own threshold). Where the terms come from is
/// the ``DenseTermSource``'s business: SQLite's `label_postings`
/// (``SQLitePostings``) or PostgreSQL's, fetched before evaluation.
///
/// Array values: 0 no match, 1...10_001 the quantized score + 1, `scoreless`
/// for a match that carries no score (NOT, the universe).
///
/// Usage: `let scores = try DenseEvaluator(source: SQLitePostings(db: db), total: n).evaluate(plan)`
package struct DenseEvaluator {
    static let scoreless: UInt16 = 0xFFFF

    let source: any DenseTermSource
    let total: Int
    var size: Int { source.size }

    package init(source: any DenseTermSource, total: Int) {
        self.source = source
        self.total = total
    }

    /// Whether this evaluator can answer `plan`.
    static func supports(_ plan: MatchPlan) -> Bool {
        switch plan {
        case .labels, .faces, .all, .nothing: true
        case .people: false
        case .and(let children), .or(let children): children.allSatisfy(supports)
        case .not(let child): supports(child)
        }
    }

    package func evaluate(_ plan: MatchPlan) throws -> [UInt16] {
        switch plan {
        case .labels(let match):
            var scores = [UInt16](repeating: 0, count: size)
            for (label, threshold) in match.scans { try source.scan(label, threshold: threshold, into: &scores) }
            return scores
        case .faces(let match):
            var scores = [UInt16](repeating: 0, count: size)
            try source.scan(match.labelID, threshold: match.threshold, into: &scores)
            try source.keepFaces(match.counts, &scores)
            return scores
        case .people:
            // `supports` keeps people out of dense evaluation (SQL joins them to images by content).
            throw TagIndexError.invalidInput("a search for people runs in SQL, not over postings")
        case .all:
            return try source.universe()
        case .nothing:
            return [UInt16](repeating: 0, count: size)
        case .not(let child):
            var scores = try source.universe()
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
        var scores = try positives.first.map(evaluate) ?? source.universe()
        var matches = scores.reduce(0) { $0 + ($1 != 0 ? 1 : 0) }
        for child in positives.dropFirst() {
            guard matches > 0 else { break }
            if let match = Self.probeable(child), matches * 8 < match.estimate,
                let remaining = try source.probe(match, &scores, keepMatches: true)
            {
                matches = remaining
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
            if let match = Self.probeable(child), matches * 8 < match.estimate,
                let remaining = try source.probe(match, &scores, keepMatches: false)
            {
                matches = remaining
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

    /// The result count and the `count` best (score desc, image id desc) from `offset`.
    package static func page(_ scores: [UInt16], offset: Int, count: Int) -> (total: Int, page: [(id: Int64, score: Int?)]) {
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
}
