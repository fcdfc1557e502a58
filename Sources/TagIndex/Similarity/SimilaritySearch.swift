import Foundation
import GRDB

/// How similar two feature prints are, as a search score.
///
/// score = max(0, cosine similarity) of the two L2-normalized prints. The pooled features of
/// EfficientNet-Lite0 come after a ReLU6, so they are never negative and the cosine of two prints
/// is already in 0...1: the clamp only guards against other models. 1 means the same content;
/// resized or recompressed copies of a photo score above ~0.95, unrelated photos ~0.2-0.5.
/// (`(cosine + 1) / 2` was rejected: it would squeeze every real pair into 0.6...1.)
///
/// ```swift
/// let score = SimilarityScore.score(cosine: 0.93)   // 0.93
/// ```
public enum SimilarityScore {
    /// The score of a cosine similarity.
    ///
    /// ```swift
    /// SimilarityScore.score(cosine: -0.2)   // 0
    /// ```
    public static func score(cosine: Double) -> Double { min(1, max(0, cosine)) }
}

extension SQLiteIndex {
    /// The indexed images most similar to the indexed image at `path` (itself excluded), best first.
    ///
    /// `query` narrows the candidates with a label expression and filters, and gives the page
    /// (`limit`, `page`); hits score in 0...1 (see ``SimilarityScore``) and those below
    /// `minimumScore` are dropped. Throws ``TagIndexError/invalidInput(_:)`` when `path` has no
    /// stored feature print.
    ///
    /// ```swift
    /// let page = try index.similar(toPath: "/photos/dog.jpg", query: Query(parsing: "dog under:/photos/2024"))
    /// ```
    public func similar(toPath path: String, query: Query = Query(), minimumScore: Double = 0) throws -> SearchPage {
        guard let print = try featurePrint(forPath: path) else {
            throw TagIndexError.invalidInput("\(path) is not indexed or has no feature print")
        }
        return try similar(to: print, query: query, minimumScore: minimumScore, excludingPath: path)
    }

    /// The indexed images most similar to a feature print (e.g. of an image classified on the
    /// fly), best first: an exact scan of every stored print, streamed in blocks.
    ///
    /// ```swift
    /// let result = try classifier.classify(contentsOf: url)
    /// let page = try index.similar(to: result.featurePrint.values, minimumScore: 0.5)
    /// ```
    public func similar(
        to featurePrint: [Float], query: Query = Query(), minimumScore: Double = 0, excludingPath: String? = nil
    ) throws -> SearchPage {
        guard featurePrint.count == FeaturePrint.dimension, featurePrint.allSatisfy(\.isFinite) else {
            throw TagIndexError.invalidInput(
                "a feature print has \(FeaturePrint.dimension) finite values; got \(featurePrint.count)")
        }
        guard (1...1000).contains(query.limit), query.page >= 1, query.page <= 1_000_000 else {
            throw TagIndexError.invalidInput("a page holds 1 to 1000 results and pages start at 1")
        }
        let norm = featurePrint.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let probe = featurePrint.map { norm > 0 ? $0 / norm : 0 }
        return try database.read { db in
            let (searcher, _) = try Searcher.reading(db: db, taxonomy: try taxonomy(db), query: query)
            let excluded = try excludingPath.flatMap {
                try Int64.fetchOne(db, sql: "SELECT id FROM images WHERE path = ?", arguments: [$0])
            }
            let offset = (query.page - 1) * query.limit
            var best = TopScores(capacity: offset + query.limit)
            var total = 0
            let floor = Float(minimumScore)
            var scores = [Float](repeating: 0, count: PrintBlocks.blockSize)
            try probe.withUnsafeBufferPointer { probe in
                try PrintBlocks.forEach(db, candidates: try searcher.matchingImageIDs()) { ids, halves, count in
                    scores.withUnsafeMutableBufferPointer { scores in
                        PrintBlocks.dot(
                            queries: probe.baseAddress!, queryCount: 1, rows: halves.baseAddress!, count: count,
                            into: scores.baseAddress!)
                        for row in 0..<count where ids[row] != excluded {
                            let score = min(1, max(0, scores[row]))
                            guard score >= floor else { continue }
                            total += 1
                            best.insert(score: score, id: ids[row])
                        }
                    }
                }
            }
            let ranked = best.sortedDescending().dropFirst(offset)
            let hits = try searcher.hits(ranked.map { (id: $0.id, score: Double($0.score)) })
            return SearchPage(hits: hits, totalCount: total, page: query.page, limit: query.limit, facets: [])
        }
    }
}

extension Searcher {
    /// Ids (ascending) of every image the query's expression and filters match, whatever the
    /// page; nil when the query matches every indexed image.
    func matchingImageIDs() throws -> [Int64]? {
        try withMatchingSet { dialect, matching in
            let binder = SQLBinder(dialect)
            guard let sql = try matching(binder) else { return nil }
            var ids: [Int64] = []
            try RawScan.forEachRow(try db.makeStatement(sql: sql + " ORDER BY m.image_id"), arguments: binder.statementArguments) { handle in
                ids.append(Int64(RawScan.int(handle, 0)))
            }
            return ids
        }
    }

    /// Runs `body` with the dialect to compile with and a maker of the SQL of the set (one
    /// `image_id` column, `m.image_id`) of images the query's expression and filters match, its
    /// values bound through the binder given; the maker returns nil when the query matches every
    /// indexed image. The calibrated `untagged` test's function is registered while `body` runs.
    func withMatchingSet<Result>(_ body: (SQLiteDialect, (SQLBinder) throws -> String?) throws -> Result) throws -> Result {
        guard query.expression != nil || query.filters.needsImageRow else {
            return try body(SQLiteDialect(passesFunction: nil)) { _ in nil }
        }
        let total = try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0
        let plan = try query.expression.map { try MatchPlanner(db: db, taxonomy: taxonomy, query: query).plan($0) }
            ?? .all
        // `untagged` under a calibrated filter: as in `search`, no label reaches its threshold.
        let calibrated = try calibratedThresholdsByLabel()
        let passes = calibrated.map(Self.passesFunction)
        if let passes { db.add(function: passes) }
        defer { if let passes { db.remove(function: passes) } }
        return try body(SQLiteDialect(passesFunction: passes?.name)) { binder in
            var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)
            var sql = "SELECT m.image_id FROM (\(compiler.set(plan))) AS m"
            if query.filters.needsImageRow {
                sql += " CROSS JOIN images AS i ON i.id = m.image_id" + SearchFilters(query: query, calibrated: calibrated).whereClause(binder)
            }
            return sql
        }
    }
}

/// The `capacity` best (score, id) pairs seen, in a min-heap; ties prefer the higher id, as
/// label searches do.
package struct TopScores {
    let capacity: Int
    private(set) var heap: [(score: Float, id: Int64)] = []

    package init(capacity: Int) { self.capacity = capacity }

    private static func worse(_ a: (score: Float, id: Int64), _ b: (score: Float, id: Int64)) -> Bool {
        a.score < b.score || (a.score == b.score && a.id < b.id)
    }

    package mutating func insert(score: Float, id: Int64) {
        let item = (score: score, id: id)
        if heap.count < capacity {
            heap.append(item)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.worse(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        } else if let root = heap.first, Self.worse(root, item) {
            heap[0] = item
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count && Self.worse(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count && Self.worse(heap[right], heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }

    package func sortedDescending() -> [(score: Float, id: Int64)] { heap.sorted { Self.worse($1, $0) } }
}
