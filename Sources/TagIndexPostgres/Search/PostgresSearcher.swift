import TagIndex
import Foundation
import PostgresNIO

/// Runs a resolved search (its ``MatchPlan``) on PostgreSQL and returns the page ``SQLiteIndex``
/// would return for it on SQLite: the same hits in the same order, the same total and the same
/// facets.
///
/// The statement is the plan's rows joined to `images` and narrowed by the filters (folders,
/// file types, dates, sizes, dimensions, untagged or failed), ordered by score (NULL scores last,
/// as SQLite orders them), path (byte order, `COLLATE "C"`, as SQLite compares text) or date,
/// then paged. Facets count, over the whole result set, the labels whose `best` passes the query's
/// threshold or their calibrated threshold. Every value is a bound parameter.
///
/// Usage: `let page = try await PostgresSearcher(query: query, taxonomy: taxonomy, addedLabelIDs: added).run(plan, total: total, session)`
struct PostgresSearcher {
    let query: Query
    let taxonomy: TaxonomySnapshot
    /// The labels with an `added` correction (read with the taxonomy, see `PostgresTaxonomy.load`).
    let addedLabelIDs: Set<Int64>

    /// Quantized per-label thresholds of a calibrated query (labels a person added pass at 1),
    /// as `Searcher` computes them; nil when the query is not calibrated.
    var calibratedThresholds: [Int64: Int]? {
        Searcher.calibratedThresholds(query, taxonomy, addedLabelIDs: addedLabelIDs)
    }

    /// The labels with an `added` correction, by id.
    static func addedLabelIDs(_ session: PostgresSession) async throws -> Set<Int64> {
        Set(try await session.all(
            "SELECT DISTINCT l.id FROM corrections AS c JOIN labels AS l ON l.identifier = c.label WHERE c.added"
        ) { try $0.decode(Int64.self) })
    }

    /// One page of results for `plan`; `total` is an upper bound of the image count (for join order).
    func run(_ plan: MatchPlan, total: Int, _ session: PostgresSession) async throws -> SearchPage {
        let calibrated = calibratedThresholds
        let binder = SQLBinder(PostgresDialect())
        var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)
        // As on SQLite: without file filters or an order by file, the plan's rows are the result
        // (an image with observations is an indexed one), and `images` is read for the page only.
        let joinsImages = query.filters.needsImageRow || query.sort != .confidence
        let sortKey = switch query.sort {
        case .confidence: ""
        case .path: ", i.path COLLATE \"C\" AS sort_key"
        case .date: ", i.mtime AS sort_key"
        case .taken: ", \(SortOrder.takenKey) AS sort_key"
        }
        let resultSet = joinsImages
            ? filteredSet(plan, columns: sortKey, calibrated: calibrated, &compiler)
            : "SELECT m.image_id AS image_id, m.score AS score FROM (\(compiler.set(plan))) AS m"
        // The result set's parameters, before the page's own (a statement must use every one).
        let resultBindings = binder.postgresBindings

        // The count: the label's image count for a single term at the floor (labels.image_count
        // counts exactly those rows, as on SQLite), the facets' pass when there are facets, else
        // a window over the page's own statement, so the result set is evaluated once.
        var knownCount: Int? = nil
        if case .labels(let label) = plan, label.isSingleRoot, !joinsImages, label.threshold == StorageFormat.floorQuantized {
            knownCount = label.estimate
        }
        let countsInPage = knownCount == nil && query.facetCount == 0
        var page = "SELECT r.image_id, r.score\(countsInPage ? ", COUNT(*) OVER ()" : "") FROM (\(resultSet)) AS r"
        switch query.sort {
        // A plan whose scores are never NULL orders as its index does (PostgreSQL's DESC puts
        // NULLs first, SQLite's last: the two orders differ only where a score can be NULL).
        case .confidence: page += " ORDER BY r.score DESC\(plan.scoresAreNeverNull ? "" : " NULLS LAST"), r.image_id DESC"
        case .path: page += " ORDER BY r.sort_key, r.image_id"
        case .date, .taken: page += " ORDER BY r.sort_key DESC, r.image_id DESC"
        }
        let offset = (query.page - 1) * query.limit
        page += " LIMIT \(binder.bind(query.limit)) OFFSET \(binder.bind(offset))"
        var windowCount: Int? = nil
        let scored = try await session.all(page, binder.postgresBindings) { row -> (id: Int64, score: Double) in
            if countsInPage {
                let (id, score, count) = try row.decode((Int64, Int?, Int64).self)
                windowCount = Int(count)
                return (id, StorageFormat.confidence(score ?? 0))
            }
            let (id, score) = try row.decode((Int64, Int?).self)
            return (id, StorageFormat.confidence(score ?? 0))
        }
        var count: Int
        var facets: [Facet] = []
        if query.facetCount > 0 {
            // One pass over the result set gives both the facets and the count.
            (facets, count) = try await self.facets(ofResultSet: resultSet, resultBindings, calibrated: calibrated, session)
        } else if let known = knownCount ?? windowCount {
            count = known
        } else if !scored.isEmpty && scored.count < query.limit {
            count = offset + scored.count
        } else {
            // A page past the end: the window had no row to count on.
            count = Int(try await session.all("SELECT COUNT(*) FROM (\(resultSet)) AS r", resultBindings) { try $0.decode(Int64.self) }.first ?? 0)
        }
        return SearchPage(
            hits: try await Self.hits(scored, session), totalCount: count, page: query.page, limit: query.limit,
            facets: facets)
    }

    /// Whether `plan` is answered from the labels' postings (``runDense(_:size:labelImageCounts:_:)``), as SQLite
    /// decides for its own (`Searcher.prefersDenseEvaluation`), among the plans prefetched postings
    /// answer.
    func prefersPostings(_ plan: MatchPlan) -> Bool {
        Searcher.prefersDenseEvaluation(plan, query, supports: PrefetchedPostings.supports)
    }

    /// A page from the labels' postings, evaluated here by ``DenseEvaluator`` as SQLite does: the
    /// postings of every label of the plan in one statement (compacted blocks, and observations
    /// where blocks changed since), then AND, OR and NOT over arrays, a top-k, and the page's rows.
    /// `labelImageCounts` are the labels' stored image counts, as the search's lookup read them.
    func runDense(_ plan: MatchPlan, size: Int, labelImageCounts: [Int64: Int], _ session: PostgresSession) async throws -> SearchPage {
        let scores: [UInt16]
        if case .labels(let match) = plan {
            // One term (a label's subtree): its postings raise the scores as they arrive.
            let thresholds = Dictionary(match.scans.map { ($0.labelID, $0.threshold) }, uniquingKeysWith: min)
            scores = try await PostgresPostings.scores(thresholds: thresholds, size: size, session)
        } else {
            let postings = try await PostgresPostings.load(PrefetchedPostings.labels(of: plan).sorted(), size: size, session)
            scores = try DenseEvaluator(source: postings, total: size).evaluate(plan)
        }
        let (totalCount, page) = DenseEvaluator.page(scores, offset: (query.page - 1) * query.limit, count: query.limit)
        var facets: [Facet] = []
        if query.facetCount > 0 {
            // The postings engine always counts from postings (tests compare it with SQL).
            if totalCount > (query.engine == .postings ? 0 : Self.facetsFromPostingsAbove) {
                facets = try await facetsFromPostings(scores, size: size, labelImageCounts: labelImageCounts, session)
            } else {
                let ids = scores.indices.compactMap { scores[$0] != 0 ? Int64($0) : nil }
                facets = try await self.facets(ofImages: ids, calibrated: calibratedThresholds, session)
            }
        }
        let scored = page.map { (id: $0.id, score: StorageFormat.confidence($0.score ?? 0)) }
        return SearchPage(
            hits: try await Self.hits(scored, session), totalCount: totalCount, page: query.page, limit: query.limit,
            facets: facets)
    }

    /// Results past which facets are counted from the labels' postings rather than the results'
    /// packed labels (as on SQLite: reading a few large labels beats joining every result).
    static let facetsFromPostingsAbove = 50_000

    /// Facets of a large dense result from the labels' postings, as SQLite's engine counts them:
    /// labels in decreasing image count, fetched 16 at a time, each counted against the result
    /// as a bitset; once `facetCount` labels have counts above the next label's image count, no
    /// later label can enter the top, and the rest are not read.
    private func facetsFromPostings(
        _ scores: [UInt16], size: Int, labelImageCounts: [Int64: Int], _ session: PostgresSession
    ) async throws -> [Facet] {
        let uniform = StorageFormat.threshold(query.minimumConfidence)
        let calibrated = calibratedThresholds
        var bits = [UInt64](repeating: 0, count: scores.count / 64 + 1)
        for (index, value) in scores.enumerated() where value != 0 { bits[index >> 6] |= 1 << UInt64(index & 63) }
        let labels = labelImageCounts
            .filter { $0.value > 0 && (calibrated == nil || calibrated?[$0.key] != nil) }
            .sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { (label: $0.key, bound: $0.value) }
        var counts: [Int64: Int] = [:]
        var best: [Int] = []  // the `facetCount` highest counts so far, ascending
        var start = 0
        reading: while start < labels.count {
            let batch = labels[start..<min(start + 16, labels.count)]
            start = batch.endIndex
            let postings = try await PostgresPostings.load(batch.map(\.0), size: size, session)
            for (label, bound) in batch {
                if best.count >= query.facetCount, let lowest = best.first, lowest > bound { break reading }
                let count = postings.count(label, threshold: calibrated?[label] ?? uniform, in: bits)
                guard count > 0 else { continue }
                counts[label] = count
                best.insert(count, at: best.firstIndex { $0 > count } ?? best.count)
                if best.count > query.facetCount { best.removeFirst() }
            }
        }
        return facetList(counts.map { (Int($0.key), $0.value) })
    }

    /// `image_id`, `score` (and `columns` of `images AS i`) of the plan's images that pass the
    /// query's filters and status. Every image (`.all`, a search of filters alone) reads `images`
    /// once: joining the universe, itself a scan of `images`, to `images` again made the server
    /// scan the whole table for a folder's ids (80 ms at 100,000 images for a folder of 10,000).
    func filteredSet(_ plan: MatchPlan, columns: String = "", calibrated: [Int64: Int]?, _ compiler: inout PlanCompiler) -> String {
        let filters = SearchFilters(query: query, calibrated: calibrated)
        if case .all = plan {
            return "SELECT i.id AS image_id, NULL::integer AS score\(columns) FROM images AS i" + filters.whereClause(compiler.binder)
        }
        return "SELECT m.image_id AS image_id, m.score AS score\(columns) FROM (\(compiler.set(plan))) AS m JOIN images AS i ON i.id = m.image_id"
            + filters.whereClause(compiler.binder)
    }

    /// The most frequent passing labels of the whole result set, most frequent first, then by
    /// identifier, and the size of the result set.
    ///
    /// The result set's packed labels (`image_labels`, one row per image, read by primary key)
    /// are streamed and counted here, as ``DenseEvaluator`` counts them on SQLite: PostgreSQL
    /// would otherwise have to find each image's observations in a table ordered by label.
    /// Packed labels are flat lists of entries, so one block's images concatenated are one list:
    /// a row per block of 4,096 image ids instead of a row per image (the rows' own cost, not
    /// their bytes, was most of the time).
    private func facets(ofResultSet resultSet: String, _ binds: PostgresBindings, calibrated: [Int64: Int]?, _ session: PostgresSession) async throws -> (facets: [Facet], count: Int) {
        try await facets(
            """
            SELECT COUNT(*), string_agg(l.packed, ''::bytea) FROM (\(resultSet)) AS r
            LEFT JOIN image_labels AS l ON l.image_id = r.image_id GROUP BY r.image_id >> \(Postings.blockShift)
            """, binds, calibrated: calibrated, session)
    }

    /// Facets of the images `ids` (a dense result), as ``facets(ofResultSet:_:calibrated:_:)``.
    private func facets(ofImages ids: [Int64], calibrated: [Int64: Int]?, _ session: PostgresSession) async throws -> [Facet] {
        var binds = PostgresBindings()
        binds.append(ids)
        return try await facets(
            """
            SELECT COUNT(*), string_agg(packed, ''::bytea) FROM image_labels
            WHERE image_id = ANY($1::bigint[]) GROUP BY image_id >> \(Postings.blockShift)
            """, binds, calibrated: calibrated, session
        ).facets
    }

    /// Counts the passing labels of rows `(images, packed labels)`.
    private func facets(_ sql: String, _ binds: PostgresBindings, calibrated: [Int64: Int]?, _ session: PostgresSession) async throws -> (facets: [Facet], count: Int) {
        let threshold = StorageFormat.threshold(query.minimumConfidence)
        // Per label id, the threshold its `best` must reach to count (calibrated or uniform).
        let largestID = Int(max(taxonomy.labels.keys.max() ?? 0, calibrated?.keys.max() ?? 0))
        var thresholds = [Int](repeating: calibrated == nil ? threshold : Int.max, count: largestID + 1)
        if let calibrated { for (label, value) in calibrated { thresholds[Int(label)] = value } }
        var counts = [Int](repeating: 0, count: largestID + 1)
        var images = 0
        _ = try await session.all(sql, binds) { row in
            let (count, packed) = try row.decode((Int64, ByteBuffer?).self)
            images += Int(count)
            guard let packed else { return }
            packed.readableBytesView.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { label, best, _ in
                    if label < thresholds.count, best >= thresholds[label] { counts[label] += 1 }
                }
            }
        }
        return (facetList(counts.enumerated().map { ($0.offset, $0.element) }), images)
    }

    /// The `facetCount` most frequent of (label id, count) (see ``ResultAssembly/facets(_:taxonomy:limit:)``).
    private func facetList(_ counts: [(Int, Int)]) -> [Facet] {
        ResultAssembly.facets(counts.map { (labelID: Int64($0.0), count: $0.1) }, taxonomy: taxonomy, limit: query.facetCount)
    }

    /// The hits of scored image ids, in the given order.
    static func hits(_ scored: [(id: Int64, score: Double)], _ session: PostgresSession) async throws -> [SearchHit] {
        guard !scored.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(scored.map(\.id))
        let rows = try await session.all(
            "SELECT \(ResultAssembly.hitColumns) FROM images WHERE id = ANY($1::bigint[])", binds
        ) { row -> ResultAssembly.HitRow in
            let (id, path, size, mtime, width, height, stage, reason) = try row.decode((Int64, String, Int64, Int64, Int?, Int?, String?, String?).self)
            return ResultAssembly.HitRow(
                id: id, path: path, size: size, mtime: mtime, width: width, height: height, errorStage: stage, errorReason: reason)
        }
        return ResultAssembly.hits(scored, rows: rows)
    }
}
