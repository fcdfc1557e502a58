import ClassifySupport
import Foundation
import GRDB

/// One image of a near-duplicate group.
///
/// ```swift
/// for member in group.members { print(member.path, member.score) }
/// ```
public struct DuplicateMember: Sendable, Hashable {
    /// The image's id in the index.
    public var imageID: Int64
    /// Path of the file.
    public var path: String
    /// Width in pixels.
    public var width: Int?
    /// Height in pixels.
    public var height: Int?
    /// Size in bytes.
    public var size: Int64
    /// Similarity score to the group's keeper (1 for the keeper itself), see ``SimilarityScore``.
    public var score: Double

    /// Memberwise, for the backends of this package.
    package init(imageID: Int64, path: String, width: Int?, height: Int?, size: Int64, score: Double) {
        self.imageID = imageID
        self.path = path
        self.width = width
        self.height = height
        self.size = size
        self.score = score
    }
}

/// Photos that are near-duplicates of one another: a connected component of the graph whose
/// edges join images scoring at least the threshold.
///
/// ```swift
/// let groups = try index.duplicateGroups()
/// print(groups.first?.keeper.path ?? "no duplicates")
/// ```
public struct DuplicateGroup: Sendable, Hashable {
    /// The keeper first (largest resolution, then largest file, then path), then the others
    /// by decreasing score.
    public var members: [DuplicateMember]

    /// False when the group was cut at a size limit (see
    /// ``SQLiteIndex/duplicateGroup(containingPath:threshold:maximumMembers:knownNeighbours:)``):
    /// more images belong to it than `members` holds.
    ///
    /// ```swift
    /// if !group.isComplete { print("and more: see classify-tool duplicates") }
    /// ```
    public var isComplete = true

    /// The suggested copy to keep: the largest resolution.
    ///
    /// ```swift
    /// let keep = group.keeper.path
    /// ```
    public var keeper: DuplicateMember { members[0] }
}

extension DuplicateGroup {
    /// A group of `candidates` (a key and the member's facts), the keeper first (largest
    /// resolution, then largest file, then path), then the others by decreasing score against it;
    /// `cosine(a, b)` is the cosine of two candidates' prints.
    init<Key: Equatable>(ranking candidates: [(Key, DuplicateMember)], cosine: (Key, Key) -> Float) {
        let keeper = candidates.max { a, b in
            let pixelsA = (a.1.width ?? 0) * (a.1.height ?? 0), pixelsB = (b.1.width ?? 0) * (b.1.height ?? 0)
            return (pixelsA, a.1.size, b.1.path) < (pixelsB, b.1.size, a.1.path)
        }!
        var members = candidates.map { key, member in
            var member = member
            member.score = key == keeper.0 ? 1 : SimilarityScore.score(cosine: Double(cosine(key, keeper.0)))
            return member
        }
        members.sort { ($0.path == keeper.1.path ? 1 : 0, $0.score, $1.path) > ($1.path == keeper.1.path ? 1 : 0, $1.score, $0.path) }
        self.init(members: members)
    }
}

/// Two indexed images and their similarity score.
///
/// ```swift
/// for pair in try index.similarPairs(minimumScore: 0.8) { print(pair.first, pair.second, pair.score) }
/// ```
public struct SimilarPair: Sendable, Hashable {
    /// Path of one image (the lower image id).
    public var first: String
    /// Path of the other image.
    public var second: String
    /// Similarity score, see ``SimilarityScore``.
    public var score: Double
}

extension SQLiteIndex {
    /// The default near-duplicate threshold on the similarity score.
    ///
    /// Measured on 1,000 families made from real photos (resize, JPEG recompression, slight crop,
    /// brightness change) against the distinct photos: see docs/similarity.md, "Near-duplicates".
    ///
    /// ```swift
    /// let groups = try index.duplicateGroups(threshold: SQLiteIndex.defaultDuplicateThreshold)
    /// ```
    public static let defaultDuplicateThreshold = 0.80

    /// Groups of near-duplicate images, largest first, each with a suggested keeper.
    ///
    /// Every pair of the images `query` matches (every indexed image by default) is scored
    /// exactly, in cache-sized tiles on all cores; pairs at or above `threshold` join their
    /// images (union-find), and groups are the connected components of two or more images.
    /// Holds the prints in memory at 2.5 KB per image.
    ///
    /// ```swift
    /// let groups = try index.duplicateGroups(threshold: 0.9, query: Query(parsing: "under:/photos/2024"))
    /// ```
    public func duplicateGroups(threshold: Double = defaultDuplicateThreshold, query: Query = Query()) throws
        -> [DuplicateGroup]
    {
        try database.read { db in
            let matrix = try PrintMatrix.load(db, query: query, taxonomy: taxonomy(db))
            let components = matrix.components(threshold: Float(threshold))
            var facts: [Int64: DuplicateMember] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT id, path, width, height, size FROM images WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [SQLiteDialect.json(components.flatMap { $0.map { matrix.ids[$0] } })])
            {
                facts[row[0]] = DuplicateMember(imageID: row[0], path: row[1], width: row[2], height: row[3], size: row[4], score: 1)
            }
            return DuplicateGroup.ranked(components, matrix, facts: facts)
        }
    }

    /// The near-duplicate group of the indexed image at `path`: every image joined to it by a
    /// chain of pairs scoring at least `threshold`, the same group ``duplicateGroups(threshold:query:)``
    /// puts it in, ordered the same way (keeper first). Nil when no other image is that close, or
    /// the image has no feature print.
    ///
    /// The chain is followed outwards: each round scans the stored prints once with every image the
    /// previous round found as a query, so a photo without duplicates costs one scan (as `similar`),
    /// and a group costs one scan per link of its longest chain. Growth stops at `maximumMembers`
    /// (``DuplicateGroup/isComplete`` is then false). `knownNeighbours`, the ids of every image
    /// scoring at least `threshold` against this one (from a `similar` page whose last hit scores
    /// below it), saves the first scan.
    ///
    /// ```swift
    /// if let group = try index.duplicateGroup(containingPath: "/photos/dog.jpg") { print(group.keeper.path) }
    /// ```
    public func duplicateGroup(
        containingPath path: String, threshold: Double = defaultDuplicateThreshold, maximumMembers: Int = 200,
        knownNeighbours: [Int64]? = nil
    ) throws -> DuplicateGroup? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, feature_print FROM images WHERE path = ?", arguments: [path]),
                let start = row["id"] as Int64?, let blob = row["feature_print"] as Data?,
                let first = FeaturePrint.decode(Array(blob))
            else { return nil }
            var growth = DuplicateGroupGrowth(start: start, print: first, threshold: threshold, maximumMembers: maximumMembers)
            if let knownNeighbours {
                growth.start(fromNeighbours: try Self.storedPrints(db, ids: growth.neighbourIDs(knownNeighbours)))
            }
            while growth.beginRound() {
                try PrintBlocks.forEach(db, candidates: nil) { ids, halves, count in growth.visit(ids: ids, halves: halves, count: count) }
                growth.endRound()
            }
            guard let ids = growth.memberIDs else { return nil }
            var members: [(Int64, DuplicateMember)] = []
            for row in try Row.fetchAll(
                db, sql: "SELECT id, path, width, height, size FROM images WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                arguments: [SQLiteDialect.json(ids)])
            {
                members.append((row[0], DuplicateMember(imageID: row[0], path: row[1], width: row[2], height: row[3], size: row[4], score: 1)))
            }
            return growth.group(members)
        }
    }

    /// The stored prints (unit length, as written) of the images `ids` that have one.
    private static func storedPrints(_ db: Database, ids: [Int64]) throws -> [(Int64, [Float])] {
        try Row.fetchAll(
            db, sql: "SELECT id, feature_print FROM images WHERE id IN (SELECT value FROM json_each(?)) AND feature_print IS NOT NULL",
            arguments: [SQLiteDialect.json(ids)]
        ).compactMap { row in
            (row["feature_print"] as Data?).flatMap { FeaturePrint.decode(Array($0)) }.map { (row["id"], $0) }
        }
    }

    /// Every pair of images (those `query` matches) scoring at least `minimumScore`, best first:
    /// the raw edges behind ``duplicateGroups(threshold:query:)``, for measuring thresholds.
    ///
    /// ```swift
    /// let pairs = try index.similarPairs(minimumScore: 0.7)
    /// ```
    public func similarPairs(minimumScore: Double, query: Query = Query()) throws -> [SimilarPair] {
        try database.read { db in
            let matrix = try PrintMatrix.load(db, query: query, taxonomy: taxonomy(db))
            var paths: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, path FROM images WHERE feature_print IS NOT NULL") {
                paths[row[0]] = row[1]
            }
            return matrix.similarPairs(minimumScore: Float(minimumScore), paths: paths)
        }
    }
}

extension DuplicateGroup {
    /// The groups of `components` (rows of `matrix`), each ranked (keeper first), largest group
    /// first; `facts` holds the members' rows by image id (a member without one is left out).
    package static func ranked(_ components: [[Int]], _ matrix: PrintMatrix, facts: [Int64: DuplicateMember]) -> [DuplicateGroup] {
        var result: [DuplicateGroup] = []
        for rows in components {
            let candidates = rows.compactMap { row in facts[matrix.ids[row]].map { (row, $0) } }
            guard candidates.count >= 2 else { continue }
            result.append(DuplicateGroup(ranking: candidates) { matrix.dot($0, $1) })
        }
        return result.sorted { ($0.members.count, $1.keeper.path) > ($1.members.count, $0.keeper.path) }
    }
}

extension PrintMatrix {
    /// The rows of every connected component of two or more images joined by pairs scoring at
    /// least `threshold` (union-find over the edges), each sorted.
    package func components(threshold: Float) -> [[Int]] {
        let edges = pairs(minimumScore: threshold)
        var components = UnionFind(count: ids.count)
        for edge in edges { components.union(Int(edge.first), Int(edge.second)) }
        var groups: [Int: Set<Int>] = [:]
        for edge in edges {
            groups[components.find(Int(edge.first)), default: []].insert(Int(edge.first))
            groups[components.find(Int(edge.second)), default: []].insert(Int(edge.second))
        }
        return groups.values.map { $0.sorted() }
    }

    /// Every pair scoring at least `minimumScore`, best first (ties by path), named by `paths`
    /// (image id to path; a pair missing one is left out).
    package func similarPairs(minimumScore: Float, paths: [Int64: String]) -> [SimilarPair] {
        pairs(minimumScore: minimumScore).compactMap { edge -> SimilarPair? in
            guard let first = paths[ids[Int(edge.first)]], let second = paths[ids[Int(edge.second)]] else { return nil }
            return SimilarPair(first: first, second: second, score: SimilarityScore.score(cosine: Double(edge.score)))
        }.sorted { ($0.score, $1.first, $1.second) > ($1.score, $0.first, $0.second) }
    }
}

/// The stored prints of a set of images, in memory (fp16), for all-pairs scoring.
package struct PrintMatrix: @unchecked Sendable {
    package let ids: [Int64]
    let halves: [UInt16]
    static let dimension = FeaturePrint.dimension

    package struct Edge: Sendable { var first: Int32, second: Int32, score: Float }

    package static func load(_ db: Database, query: Query, taxonomy: TaxonomySnapshot) throws -> PrintMatrix {
        let candidates = try Searcher.reading(db: db, taxonomy: taxonomy, query: query).0.matchingImageIDs()
        var ids: [Int64] = []
        var halves: [UInt16] = []
        try PrintBlocks.forEach(db, candidates: candidates) { blockIDs, blockHalves, count in
            ids.append(contentsOf: blockIDs.prefix(count))
            halves.append(contentsOf: blockHalves.prefix(count * dimension))
        }
        return PrintMatrix(ids: ids, halves: halves)
    }

    /// Cosine of rows `a` and `b`.
    package func dot(_ a: Int, _ b: Int) -> Float {
        let query = (0..<Self.dimension).map { FeaturePrint.float(fromHalfBits: halves[a * Self.dimension + $0]) }
        var out: Float = 0
        halves.withUnsafeBufferPointer { rows in
            PrintBlocks.dot(queries: query, queryCount: 1, rows: rows.baseAddress! + b * Self.dimension, count: 1, into: &out)
        }
        return out
    }

    /// Every pair (i < j) with cosine >= `minimumScore`. Rows are taken 64 at a time (as fp32
    /// queries) against tiles of 256 rows (640 KB of fp16, L2-resident); blocks run on all cores.
    func pairs(minimumScore: Float) -> [Edge] {
        let count = ids.count
        let queryBlock = 64, tile = 256, dimension = Self.dimension
        let blockCount = (count + queryBlock - 1) / queryBlock
        let found = Locked<[Edge]>([])
        halves.withUnsafeBufferPointer { buffer in
            let rows = SendablePointer(base: buffer.baseAddress)
            DispatchQueue.concurrentPerform(iterations: blockCount) { block in
                guard let base = rows.base else { return }
                let start = block * queryBlock, end = min(count, start + queryBlock)
                let queryCount = end - start
                var queries = [Float](repeating: 0, count: queryCount * dimension)
                for index in 0..<queries.count {
                    queries[index] = FeaturePrint.float(fromHalfBits: base[start * dimension + index])
                }
                var scores = [Float](repeating: 0, count: queryCount * tile)
                var edges: [Edge] = []
                var tileStart = start
                while tileStart < count {
                    let tileCount = min(tile, count - tileStart)
                    PrintBlocks.dot(
                        queries: queries, queryCount: queryCount, rows: base + tileStart * dimension, count: tileCount,
                        into: &scores)
                    for q in 0..<queryCount {
                        for r in 0..<tileCount where tileStart + r > start + q && scores[q * tileCount + r] >= minimumScore {
                            edges.append(Edge(first: Int32(start + q), second: Int32(tileStart + r), score: scores[q * tileCount + r]))
                        }
                    }
                    tileStart += tileCount
                }
                if !edges.isEmpty { found.withLock { $0.append(contentsOf: edges) } }
            }
        }
        return found.withLock { $0 }
    }

    /// Memberwise, for the backends of this package.
    package init(ids: [Int64], halves: [UInt16]) {
        self.ids = ids
        self.halves = halves
    }
}

private struct SendablePointer: @unchecked Sendable {
    let base: UnsafePointer<UInt16>?
}

/// Disjoint sets over 0..<count with path halving and union by size.
package struct UnionFind {
    private var parent: [Int32]
    private var size: [Int32]

    init(count: Int) {
        parent = (0..<count).map { Int32($0) }
        size = [Int32](repeating: 1, count: count)
    }

    mutating func find(_ element: Int) -> Int {
        var node = element
        while Int(parent[node]) != node {
            parent[node] = parent[Int(parent[node])]
            node = Int(parent[node])
        }
        return node
    }

    mutating func union(_ a: Int, _ b: Int) {
        var rootA = find(a), rootB = find(b)
        guard rootA != rootB else { return }
        if size[rootA] < size[rootB] { swap(&rootA, &rootB) }
        parent[rootB] = Int32(rootA)
        size[rootA] += size[rootB]
    }
}
