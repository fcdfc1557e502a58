/// The search for one image's near-duplicate group, outwards a round at a time (see
/// ``SQLiteIndex/duplicateGroup(containingPath:threshold:maximumMembers:knownNeighbours:)``), apart
/// from how the stored prints are read: each backend streams its blocks of prints through
/// ``visit(ids:halves:count:)``, so both find the same group.
///
/// Usage:
/// ```swift
/// var growth = DuplicateGroupGrowth(start: id, print: print, threshold: 0.8, maximumMembers: 60)
/// while growth.beginRound() {
///     try PrintBlocks.forEach(db, candidates: nil) { ids, halves, count in growth.visit(ids: ids, halves: halves, count: count) }
///     growth.endRound()
/// }
/// ```
package struct DuplicateGroupGrowth {
    package let start: Int64
    let floor: Float
    let maximumMembers: Int
    /// The prints (fp32 from the stored fp16, as the all-pairs scan reads them) of every member found so far.
    private(set) var prints: [Int64: [Float]]
    /// The members found by the last round: the next round's queries.
    private var frontier: [Int64]
    /// False once a member was left out at `maximumMembers`.
    private(set) var isComplete = true
    private var found: [Int64] = []
    private var queries: [Float] = []
    private var scores: [Float] = []

    package init(start: Int64, print: [Float], threshold: Double, maximumMembers: Int) {
        self.start = start
        floor = Float(threshold)
        self.maximumMembers = maximumMembers
        prints = [start: print]
        frontier = [start]
    }

    /// The ids among `knownNeighbours` whose prints ``start(fromNeighbours:)`` needs.
    package func neighbourIDs(_ knownNeighbours: [Int64]) -> [Int64] {
        Array(Set(knownNeighbours).subtracting([start])).sorted()
    }

    /// Starts from the image's known neighbours (every image scoring at least the threshold
    /// against it, with their prints) instead of a first scan.
    package mutating func start(fromNeighbours neighbours: [(Int64, [Float])]) {
        for (id, print) in neighbours { prints[id] = print }
        frontier = neighbours.map(\.0).filter { prints[$0] != nil && $0 != start }.sorted()
    }

    /// Prepares a scan with the last round's members as queries; false when the group is found.
    package mutating func beginRound() -> Bool {
        guard !frontier.isEmpty else { return false }
        queries = frontier.flatMap { prints[$0]! }
        found = []
        scores = [Float](repeating: 0, count: frontier.count * PrintBlocks.blockSize)
        return true
    }

    /// Scores one block of stored prints (`count` rows of ``FeaturePrint/dimension`` fp16 values;
    /// backends read blocks of different sizes) against the round's queries.
    package mutating func visit(ids: UnsafeBufferPointer<Int64>, halves: UnsafeBufferPointer<UInt16>, count: Int) {
        let dimension = PrintBlocks.dimension
        let queryCount = frontier.count
        if scores.count < queryCount * count { scores = [Float](repeating: 0, count: queryCount * count) }
        queries.withUnsafeBufferPointer { queries in
            scores.withUnsafeMutableBufferPointer { scores in
                PrintBlocks.dot(queries: queries.baseAddress!, queryCount: queryCount, rows: halves.baseAddress!, count: count, into: scores.baseAddress!)
            }
        }
        for row in 0..<count where prints[ids[row]] == nil {
            guard (0..<queryCount).contains(where: { scores[$0 * count + row] >= floor }) else { continue }
            guard prints.count < maximumMembers else {
                isComplete = false
                continue
            }
            let halfRow = UnsafeBufferPointer(rebasing: halves[(row * dimension)..<((row + 1) * dimension)])
            prints[ids[row]] = halfRow.map(FeaturePrint.float(fromHalfBits:))
            found.append(ids[row])
        }
    }

    /// Ends a scan: its finds are the next round's queries, unless growth stopped at the limit.
    package mutating func endRound() {
        frontier = isComplete ? found : []
    }

    /// The members' ids, ascending, or nil when no other image is close enough.
    package var memberIDs: [Int64]? { prints.count >= 2 ? prints.keys.sorted() : nil }

    /// The group of the members' facts (by id), keeper first.
    package func group(_ members: [(Int64, DuplicateMember)]) -> DuplicateGroup {
        var group = DuplicateGroup(ranking: members) { a, b in
            zip(prints[a]!, prints[b]!).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        }
        group.isComplete = isComplete
        return group
    }
}
