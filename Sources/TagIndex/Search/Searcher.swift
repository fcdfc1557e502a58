import Foundation
import GRDB

extension SQLiteIndex {
    /// Parses and runs a query string (first page, 50 results, by confidence).
    ///
    /// Throws ``QuerySyntaxError`` for a malformed query and
    /// ``TagIndexError/unknownLabel(term:offset:suggestions:)`` for a term that
    /// names no label.
    ///
    /// ```swift
    /// let page = try index.search("(dog OR cat) -indoor under:/photos")
    /// ```
    public func search(_ text: String) throws -> SearchPage {
        try search(Query(parsing: text))
    }

    /// Runs a query in one read transaction: a consistent snapshot, never
    /// blocked by (and never blocking) a writer.
    ///
    /// ```swift
    /// var query = Query(.word("dog"))
    /// query.facetCount = 10
    /// let page = try index.search(query)
    /// ```
    public func search(_ query: Query) throws -> SearchPage {
        try query.checkLimits()
        do {
            return try guardingStorage {
                try database.read { db in
                    let (searcher, notes) = try Searcher.reading(db: db, taxonomy: taxonomy(db), query: query)
                    var page = try searcher.query.color.map { try searcher.rankByColor($0) } ?? searcher.run()
                    page.notes = notes
                    page.order = searcher.query.color == nil ? searcher.query.sort : .confidence
                    return page
                }
            }
        } catch let error as DatabaseError where Self.isTooComplex(error) {
            throw TagIndexError.invalidInput(
                "this query is too complex for the index (\(error.message ?? "SQLite limit")); "
                    + "use fewer nested parentheses and negations, or sort by confidence without filters")
        }
    }

    /// SQLite limits a parsed statement (parser stack, expression depth, compound terms): deeply
    /// nested queries compiled to SQL (sorted by path or date, with filters or a calibrated
    /// filter) can reach them long before the parser's own nesting limit.
    static func isTooComplex(_ error: DatabaseError) -> Bool {
        if error.resultCode == .SQLITE_TOOBIG { return true }
        guard error.resultCode == .SQLITE_ERROR, let message = error.message else { return false }
        return ["parser stack overflow", "Expression tree is too large", "too many terms in compound SELECT",
                "too many FROM clause terms", "tables in a join"].contains { message.contains($0) }
    }
}

/// Runs one query inside a read transaction.
package struct Searcher {
    let db: Database
    let taxonomy: TaxonomySnapshot
    let query: Query

    /// A searcher of `query` with its plain words read (``PlainWordReading``: years, months,
    /// colors and places become filters), and the notes about words that mean two things.
    static func reading(db: Database, taxonomy: TaxonomySnapshot, query: Query) throws -> (Searcher, notes: [String]) {
        let (read, notes) = try PlainWordReading(TermResolver(db: db, taxonomy: taxonomy)).read(query)
        return (Searcher(db: db, taxonomy: taxonomy, query: read), notes)
    }

    func run() throws -> SearchPage {
        // An upper bound of the image count (for join order), without a scan.
        let total = try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0
        let plan = try query.expression.map { try MatchPlanner(db: db, taxonomy: taxonomy, query: query).plan($0) }
            ?? .all
        if Self.prefersDenseEvaluation(plan, query) {
            return try runDense(plan, total: total)
        }
        let joinsImages = query.filters.needsImageRow || query.sort != .confidence
        let calibratedThresholds = try calibratedThresholdsByLabel()
        let passes = calibratedThresholds.map(Self.passesFunction)
        if let passes { db.add(function: passes) }
        defer { if let passes { db.remove(function: passes) } }
        let binder = SQLBinder(SQLiteDialect(passesFunction: passes?.name))
        var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)

        var resultSet = "SELECT m.image_id AS image_id, m.score AS score FROM (\(compiler.set(plan))) AS m"
        if joinsImages {
            resultSet += " CROSS JOIN images AS i ON i.id = m.image_id"
            resultSet += SearchFilters(query: query, calibrated: calibratedThresholds).whereClause(binder)
        }
        // The result set's arguments, before the page's own.
        let resultArguments = binder.statementArguments

        var page = resultSet
        switch query.sort {
        case .confidence: page += " ORDER BY m.score DESC, m.image_id DESC"
        case .path: page += " ORDER BY i.path, i.id"
        case .date: page += " ORDER BY i.mtime DESC, i.id DESC"
        case .taken: page += " ORDER BY \(SortOrder.takenKey) DESC, i.id DESC"
        }
        let offset = (query.page - 1) * query.limit
        page += " LIMIT \(binder.bind(query.limit)) OFFSET \(binder.bind(offset))"
        let rows = try Row.fetchAll(db, sql: page, arguments: binder.statementArguments)
        let scored = rows.map { (id: $0[0] as Int64, score: StorageFormat.confidence(($0[1] as Int?) ?? 0)) }

        let totalCount: Int
        if !rows.isEmpty && rows.count < query.limit {
            totalCount = offset + rows.count
        } else if case .labels(let label) = plan, label.isSingleRoot, !joinsImages,
            label.threshold == StorageFormat.floorQuantized
        {
            // labels.image_count counts the rows at the floor: exactly this result set.
            totalCount = label.estimate
        } else {
            totalCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(resultSet))", arguments: resultArguments) ?? 0
        }

        let facets = query.facetCount > 0 ? try facets(resultSet, resultArguments, calibrated: calibratedThresholds) : []
        return SearchPage(
            hits: try hits(scored), totalCount: totalCount, page: query.page, limit: query.limit, facets: facets)
    }

    /// Boolean queries (and any query with facets) that ``DenseEvaluator``
    /// supports: confidence order, no file filters. A single uncalibrated term's
    /// first page stays in SQL, where it is one index range with a LIMIT; a
    /// calibrated term is a union of every label of its subtree, each with its
    /// own threshold, which SQL must group and sort, so it is dense even alone.
    /// `supports` says which plans the backend's term source can answer
    /// (PostgreSQL's prefetched postings answer fewer).
    package static func prefersDenseEvaluation(
        _ plan: MatchPlan, _ query: Query, supports: (MatchPlan) -> Bool = DenseEvaluator.supports
    ) -> Bool {
        guard query.engine != .sql, query.sort == .confidence, !query.filters.needsImageRow,
            query.expression != nil, supports(plan)
        else { return false }
        if query.facetCount > 0 { return true }
        if case .labels(let match) = plan, match.isSingleRoot { return false }
        return true
    }

    private func runDense(_ plan: MatchPlan, total: Int) throws -> SearchPage {
        let postings = try SQLitePostings(db: db)
        let scores = try DenseEvaluator(source: postings, total: total).evaluate(plan)
        let (totalCount, page) = DenseEvaluator.page(
            scores, offset: (query.page - 1) * query.limit, count: query.limit)
        var facets: [Facet] = []
        if query.facetCount > 0 {
            let threshold = StorageFormat.threshold(query.minimumConfidence)
            facets = facetList(
                try postings.facetCounts(
                    scores, threshold: threshold, calibrated: calibratedThresholdsByLabel(), top: query.facetCount))
        }
        let scored = page.map { (id: $0.id, score: StorageFormat.confidence($0.score ?? 0)) }
        return SearchPage(
            hits: try hits(scored), totalCount: totalCount, page: query.page, limit: query.limit, facets: facets)
    }

    private func facetList(_ counts: [Int64: Int]) -> [Facet] {
        ResultAssembly.facets(counts.map { (labelID: $0.key, count: $0.value) }, taxonomy: taxonomy, limit: query.facetCount)
    }

    /// Per-label calibrated thresholds (quantized), when the query is calibrated.
    ///
    /// Calibrated thresholds are compared with a label's `best` (the highest confidence in its
    /// subtree), not with its own confidence. They are the same number for what the classifier
    /// stores (a parent's confidence aggregates its children's, so it is at least each of
    /// theirs), and `best` is what the postings and the primary-key index carry, so a
    /// calibrated term reads the same compact postings as an uncalibrated one.
    /// A SQL function (its name unique to this call) of an image's packed labels: whether any
    /// label reaches its calibrated threshold (`untagged` under a calibrated filter).
    static func passesFunction(_ thresholds: [Int64: Int]) -> DatabaseFunction {
        DatabaseFunction("tagindex_passes_\(UInt32.random(in: 0...UInt32.max))", argumentCount: 1, pure: true) { values in
            guard let data = Data.fromDatabaseValue(values[0]) else { return false }
            return data.withUnsafeBytes { bytes in
                var passed = false
                PackedLabels.forEach(bytes) { labelID, best, _ in
                    if let threshold = thresholds[Int64(labelID)], best >= threshold { passed = true }
                }
                return passed
            }
        }
    }

    func calibratedThresholdsByLabel() throws -> [Int64: Int]? {
        guard query.calibration != nil else { return nil }
        return Self.calibratedThresholds(query, taxonomy, addedLabelIDs: try Corrections.addedLabelIDs(db))
    }

    /// The thresholds of ``calibratedThresholdsByLabel()`` from the labels people added (both backends).
    package static func calibratedThresholds(_ query: Query, _ taxonomy: TaxonomySnapshot, addedLabelIDs: Set<Int64>) -> [Int64: Int]? {
        guard let calibration = query.calibration else { return nil }
        let floor = StorageFormat.threshold(query.minimumConfidence)
        var thresholds: [Int64: Int] = [:]
        // Labels with a curve, and the face label, which passes on the detector's own decision.
        for label in Set(taxonomy.curves.keys).union(taxonomy.faceLabelID.map { [$0] } ?? []) {
            if let threshold = taxonomy.calibratedThreshold(label, calibration, added: false) {
                thresholds[label] = max(floor, StorageFormat.quantize(threshold))
            }
        }
        // A label the filter never passes still passes at confidence 1 where a person added it.
        for label in addedLabelIDs where thresholds[label] == nil {
            thresholds[label] = StorageFormat.quantize(1)
        }
        return thresholds
    }

    /// Counts, over the whole result set, the labels that pass the query's
    /// threshold or, when calibrated, their calibrated threshold (both on `best`),
    /// from the packed labels of each result.
    private func facets(_ resultSet: String, _ arguments: StatementArguments, calibrated: [Int64: Int]?) throws -> [Facet] {
        let sql = "SELECT packed FROM image_labels WHERE image_id IN (SELECT image_id FROM (\(resultSet)))"
        let threshold = StorageFormat.threshold(query.minimumConfidence)
        var counts: [Int64: Int] = [:]
        let cursor = try Data.fetchCursor(db, sql: sql, arguments: arguments)
        var dense = [Int32](repeating: 0, count: 4096)
        while let packed = try cursor.next() {
            packed.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { labelID, best, _ in
                    let passes: Bool
                    if let calibrated {
                        passes = calibrated[Int64(labelID)].map { best >= $0 } ?? false
                    } else {
                        passes = best >= threshold
                    }
                    guard passes else { return }
                    if labelID < dense.count { dense[labelID] += 1 } else { counts[Int64(labelID), default: 0] += 1 }
                }
            }
        }
        for (labelID, count) in dense.enumerated() where count > 0 { counts[Int64(labelID)] = Int(count) }
        return facetList(counts)
    }

    func hits(_ scored: [(id: Int64, score: Double)]) throws -> [SearchHit] {
        guard !scored.isEmpty else { return [] }
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(ResultAssembly.hitColumns) FROM images WHERE id IN (SELECT value FROM json_each(?))",
            arguments: [SQLiteDialect.json(scored.map(\.id))]
        ).map { row in
            ResultAssembly.HitRow(
                id: row[0], path: row[1], size: row[2], mtime: row[3], width: row[4], height: row[5], errorStage: row[6], errorReason: row[7])
        }
        return ResultAssembly.hits(scored, rows: rows)
    }
}
