import TagIndex
import Foundation
import PostgresNIO

/// Similar images and color searches on PostgreSQL: the stored feature prints' sketches and the
/// few prints that may reach the page (``PostgresPrints``, ``SketchRanking``), or the dominant
/// colors (rows, in blocks of ``PrintBlocks/blockSize``), stream from the server and are scored
/// here with the same kernels and ranking as on SQLite (no pgvector: it is not in Debian's stable
/// release), so both backends give the same pages.
extension PostgresIndex {
    /// Images that look like the indexed file at `path`, as ``SQLiteIndex/similar(toPath:query:minimumScore:)``.
    ///
    /// Usage: `let page = try await index.similar(toPath: "photos:/2023/a.jpg")`
    public func similar(toPath path: String, query: Query = Query(), minimumScore: Double = 0) async throws -> SearchPage {
        var binds = PostgresBindings()
        binds.append(path)
        let stored = try await session.all("SELECT feature_print FROM images WHERE path = $1", binds) { try $0.decode(ByteBuffer?.self) }
        guard let bytes = stored.first ?? nil, let print = FeaturePrint.decode(Array(bytes.readableBytesView)) else {
            throw TagIndexError.invalidInput("\(path) is not indexed or has no feature print")
        }
        return try await similar(to: print, query: query, minimumScore: minimumScore, excludingPath: path)
    }

    /// Images whose feature prints are closest to `featurePrint` (cosine, 0...1), narrowed by
    /// `query`'s terms and filters, as ``SQLiteIndex/similar(to:query:minimumScore:excludingPath:)``.
    ///
    /// One statement reads every clean block's print sketches and the changed blocks' prints (one
    /// snapshot); a second reads in full the prints whose score interval may reach the page
    /// (``SketchRanking``), about 1 in 50 at 100,000 images. While a compaction rewrites blocks
    /// between the two, a page may mix the two states, as any search during writes may.
    ///
    /// Usage: `let page = try await index.similar(to: print, minimumScore: 0.8)`
    public func similar(to featurePrint: [Float], query: Query = Query(), minimumScore: Double = 0, excludingPath: String? = nil) async throws -> SearchPage {
        guard featurePrint.count == FeaturePrint.dimension, featurePrint.allSatisfy(\.isFinite) else {
            throw TagIndexError.invalidInput("a feature print has \(FeaturePrint.dimension) finite values; got \(featurePrint.count)")
        }
        try Self.checkPage(query)
        let norm = featurePrint.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let probe = featurePrint.map { norm > 0 ? $0 / norm : 0 }
        var excluded: Int64?
        if let excludingPath {
            var binds = PostgresBindings()
            binds.append(excludingPath)
            excluded = try await session.all("SELECT id FROM images WHERE path = $1", binds) { try $0.decode(Int64.self) }.first
        }
        let candidates = try await candidateIDs(query)
        let shift = Int64(Postings.blockShift)
        /// Whether `id` is one of the candidates (a binary search).
        func isCandidate(_ id: Int64) -> Bool {
            guard let candidates else { return true }
            var low = 0, high = candidates.count
            while low < high {
                let middle = (low + high) / 2
                if candidates[middle] < id { low = middle + 1 } else { high = middle }
            }
            return low < candidates.count && candidates[low] == id
        }
        var ranking = SketchRanking(capacity: (query.page - 1) * query.limit + query.limit, floor: Float(minimumScore))
        var scores = [Float](repeating: 0, count: PostgresPrints.blockSize)
        /// Exact scores of prints read in full, clamped as `SimilarityScore` does.
        func score(_ ids: [Int64], _ prints: UnsafeRawBufferPointer, _ each: (Int64, Float) -> Void) {
            probe.withUnsafeBufferPointer { probe in
                scores.withUnsafeMutableBufferPointer { scores in
                    PrintBlocks.dot(
                        queries: probe.baseAddress!, queryCount: 1, rows: prints.assumingMemoryBound(to: UInt16.self).baseAddress!,
                        count: ids.count, into: scores.baseAddress!)
                }
            }
            for (row, id) in ids.enumerated() { each(id, min(1, max(0, scores[row]))) }
        }
        // First every clean block's sketches (the changed blocks' prints in full), then in full
        // the prints whose interval may reach the page. Scores do not depend on the order.
        try await PostgresPrints.forEachSketchBlock(
            blocks: candidates.map { Array(Set($0.map { $0 >> shift })).sorted() }, session,
            sketches: { ids, sketches in
                probe.withUnsafeBufferPointer { probe in
                    scores.withUnsafeMutableBufferPointer { scores in
                        PrintSketch.dot(probe: probe.baseAddress!, sketches: sketches.baseAddress!, count: ids.count, into: scores.baseAddress!)
                    }
                }
                for (row, id) in ids.enumerated() where id != excluded && isCandidate(id) {
                    ranking.add(id: id, score: scores[row], bound: PrintSketch.bound(of: sketches.baseAddress! + row * PrintSketch.byteCount))
                }
            },
            prints: { ids, prints in
                score(ids, prints) { id, score in
                    if id != excluded && isCandidate(id) { ranking.add(id: id, exactScore: score) }
                }
            })
        var exact: [Int64: Float] = [:]
        try await PostgresPrints.forEachPrint(ids: ranking.idsNeedingExactScores(), session) { ids, prints in
            score(ids, prints) { id, score in exact[id] = score }
        }
        let (best, total) = ranking.finish(exact: exact)
        return try await page(best, total: total, query)
    }

    /// Images whose dominant colors are near `color`, as ``SQLiteIndex/search(color:query:)``.
    ///
    /// Usage: `let page = try await index.search(color: IndexedColor(hex: "1E90FF")!)`
    public func search(color: IndexedColor, query: Query = Query()) async throws -> SearchPage {
        var query = query
        query.color = color
        return try await search(query)
    }

    /// The images `query` (its plain words read) keeps, ranked by how much of `color` they contain.
    func rankByColor(_ color: IndexedColor, _ query: Query) async throws -> SearchPage {
        try Self.checkPage(query)
        let target = LabColor(red: color.red, green: color.green, blue: color.blue)
        let radius = Float(SQLiteIndex.colorMatchRadius)
        var best = TopScores(capacity: (query.page - 1) * query.limit + query.limit)
        var total = 0
        try await forEachBlock(column: "dominant_colors", candidates: try await candidateIDs(query)) { rows in
            for (id, bytes) in rows {
                let score = SQLiteIndex.colorScore(Array(bytes.readableBytesView), target: target, radius: radius)
                guard score > 0 else { continue }
                total += 1
                best.insert(score: min(1, score), id: id)
            }
        }
        return try await page(best, total: total, query)
    }

    private static func checkPage(_ query: Query) throws {
        guard (1...1000).contains(query.limit), query.page >= 1, query.page <= 1_000_000 else {
            throw TagIndexError.invalidInput("a page holds 1 to 1000 results and pages start at 1")
        }
    }

    /// The ids (sorted) of the images `query`'s terms and filters keep, or nil when it keeps all.
    func candidateIDs(_ query: Query) async throws -> [Int64]? {
        guard let candidates = try await candidateSet(query) else { return nil }
        let binder = SQLBinder(PostgresDialect())
        let sql = "SELECT image_id FROM (\(candidates(binder))) AS r ORDER BY image_id"
        return try await session.all(sql, binder.postgresBindings) { try $0.decode(Int64.self) }
    }

    /// What makes the SQL of the set (one `image_id` column) of images `query`'s terms and filters
    /// keep, its values bound through the binder given; nil when it keeps all.
    func candidateSet(_ query: Query) async throws -> ((SQLBinder) -> String)? {
        guard query.expression != nil || query.filters.needsImageRow else { return nil }
        // The taxonomy `search` cached: a color search or the gallery's counts follow a search.
        let (taxonomy, lookup, labelText) = try await PostgresTaxonomy.load(session, cached: taxonomyCache.withLock { $0 })
        taxonomyCache.withLock { $0 = (taxonomy, labelText) }
        let query = try PlainWordReading(TermResolver(lookup: lookup, taxonomy: taxonomy)).read(query).query
        let total = try await session.all("SELECT COALESCE(MAX(id), 0) FROM images") { try $0.decode(Int64.self) }.first ?? 0
        let plan = try query.expression.map { try MatchPlanner(lookup: lookup, taxonomy: taxonomy, query: query).plan($0) } ?? .all
        let searcher = PostgresSearcher(query: query, taxonomy: taxonomy, addedLabelIDs: try lookup.addedLabelIDs())
        // `untagged` under a calibrated filter: as in `search`, no label reaches its threshold.
        let calibrated = searcher.calibratedThresholds
        return { binder in
            var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: Int(total))
            return "SELECT image_id FROM (\(searcher.filteredSet(plan, calibrated: calibrated, &compiler))) AS r"
        }
    }

    /// Streams (id, bytes) of a blob column of `images` in id order, a block at a time: the
    /// candidates' rows by id, or a keyset scan of every row that has the column.
    func forEachBlock(column: String, candidates: [Int64]?, _ body: ([(Int64, ByteBuffer)]) throws -> Void) async throws {
        let blockSize = PrintBlocks.blockSize
        if let candidates {
            for start in stride(from: 0, to: candidates.count, by: blockSize) {
                var binds = PostgresBindings()
                binds.append(Array(candidates[start..<min(start + blockSize, candidates.count)]))
                try body(try await session.all(
                    "SELECT id, \(column) FROM images WHERE id = ANY($1::bigint[]) AND \(column) IS NOT NULL ORDER BY id", binds
                ) { try $0.decode((Int64, ByteBuffer).self) })
            }
            return
        }
        var after: Int64 = 0
        while true {
            var binds = PostgresBindings()
            binds.append(after)
            binds.append(Int64(blockSize))
            let rows = try await session.all(
                "SELECT id, \(column) FROM images WHERE id > $1 AND \(column) IS NOT NULL ORDER BY id LIMIT $2", binds
            ) { try $0.decode((Int64, ByteBuffer).self) }
            try body(rows)
            guard rows.count == blockSize, let last = rows.last else { return }
            after = last.0
        }
    }

    private func page(_ best: TopScores, total: Int, _ query: Query) async throws -> SearchPage {
        let ranked = best.sortedDescending().dropFirst((query.page - 1) * query.limit)
        let hits = try await PostgresSearcher.hits(ranked.map { (id: $0.id, score: Double($0.score)) }, session)
        return SearchPage(hits: hits, totalCount: total, page: query.page, limit: query.limit, facets: [])
    }
}
