import TagIndex
import ClassifySupport
import Foundation
import PostgresNIO

/// A TagIndex index in PostgreSQL, for searching (``PostgresIndexRun`` writes one, with any
/// number of indexers at once; `classify-tool copy` fills one from a SQLite index).
///
/// Searches take the same language and give the same pages as ``SQLiteIndex/search(_:)-(Query)``
/// on SQLite: terms resolve against the taxonomy stored in the database, the plan runs in
/// PostgreSQL's dialect (see `PostgresDialect`, `PostgresSearcher`).
///
/// Usage:
/// ```swift
/// let index = try await PostgresIndex.open(try PostgresDescriptor(parsing: "postgres://me@nas/photos"))
/// let page = try await index.search("dog -cat under:/photos/2023")
/// await index.close()
/// ```
public final class PostgresIndex: Sendable {
    /// The connection searches run on.
    package let session: PostgresSession
    /// The taxonomy of the last search and its label text index, reused while the stored
    /// taxonomy generation is unchanged.
    let taxonomyCache = Locked<(taxonomy: TaxonomySnapshot, labelText: LabelTextIndex)?>(nil)

    private init(session: PostgresSession) {
        self.session = session
    }

    /// Connects and checks the schema: a database this version must upgrade first, or one written
    /// by a newer version, is refused untouched.
    ///
    /// Usage: `let index = try await PostgresIndex.open(descriptor)`
    public static func open(_ descriptor: PostgresDescriptor) async throws -> PostgresIndex {
        let session = try await PostgresSession.connect(descriptor)
        do {
            return try await reading(session)
        } catch {
            await session.close()
            throw error
        }
    }

    /// The index on a session already connected (closed with the index), its schema checked as
    /// ``open(_:)`` does; on failure the session is left open.
    ///
    /// Usage: `let index = try await PostgresIndex.reading(session)`
    package static func reading(_ session: PostgresSession) async throws -> PostgresIndex {
        let applied = try await PostgresSchema.appliedMigrations(session)
        let unknown = applied.subtracting(PostgresSchema.migrationIdentifiers)
        if !unknown.isEmpty {
            throw PostgresBackendError.newerSchema(database: session.descriptor.description, unknownMigrations: unknown.sorted())
        }
        let missing = Set(PostgresSchema.migrationIdentifiers).subtracting(applied)
        if !missing.isEmpty {
            throw TagIndexError.olderSchema(path: session.descriptor.description, missingMigrations: missing.sorted())
        }
        return PostgresIndex(session: session)
    }

    /// Searches with a query in the search language.
    ///
    /// Usage: `let page = try await index.search("dog OR cat")`
    public func search(_ text: String) async throws -> SearchPage {
        try await search(Query(parsing: text))
    }

    /// Runs a query; throws as ``SQLiteIndex`` does for unknown labels, bad pages and limits.
    ///
    /// Usage: `var query = try Query(parsing: "dog"); query.facetCount = 10; let page = try await index.search(query)`
    public func search(_ query: Query) async throws -> SearchPage {
        try query.checkLimits()
        let (taxonomy, lookup, labelText) = try await PostgresTaxonomy.load(session, cached: taxonomyCache.withLock { $0 })
        taxonomyCache.withLock { $0 = (taxonomy, labelText) }
        let (query, notes) = try PlainWordReading(TermResolver(lookup: lookup, taxonomy: taxonomy)).read(query)
        var page = if let color = query.color {
            try await rankByColor(color, query)
        } else {
            try await search(read: query, taxonomy, lookup)
        }
        page.notes = notes
        page.order = query.color == nil ? query.sort : .confidence
        return page
    }

    /// `search` once the plain words are read.
    private func search(read query: Query, _ taxonomy: TaxonomySnapshot, _ lookup: LabelLookup) async throws -> SearchPage {
        // The largest id and the groups waiting for compaction, in one round trip.
        let (total, changedGroups) = try await session.all("""
            SELECT COALESCE(MAX(id), 0), (SELECT COUNT(DISTINCT block >> \(PostingGroups.blockShift)) FROM changed_blocks) FROM images
            """) { try $0.decode((Int64, Int64).self) }.first ?? (Int64(0), Int64(0))
        let plan = try query.expression.map { try MatchPlanner(lookup: lookup, taxonomy: taxonomy, query: query).plan($0) } ?? .all
        let searcher = PostgresSearcher(query: query, taxonomy: taxonomy, addedLabelIDs: try lookup.addedLabelIDs())
        if searcher.prefersPostings(plan) {
            // Changed groups are read row by row from observations: past a quarter of the
            // library (a large run not compacted yet, a database just migrated), SQL is faster.
            let groups = Int(total) >> PostingGroups.imageShift + 1
            if query.engine == .postings || Int(changedGroups) * 4 <= groups {
                return try await searcher.runDense(plan, size: Int(total) + 1, labelImageCounts: try lookup.allImageCounts(), session)
            }
        }
        return try await searcher.run(plan, total: Int(total), session)
    }

    /// Counts of what the index holds.
    ///
    /// Usage: `let stats = try await index.statistics()`
    public func statistics() async throws -> IndexStatistics {
        let row = try await session.all("""
            SELECT (SELECT COUNT(*) FROM images WHERE error_stage IS NULL), (SELECT COUNT(*) FROM images WHERE error_stage IS NOT NULL),
                   (SELECT COUNT(*) FROM labels), (SELECT COUNT(*) FROM observations),
                   (SELECT COUNT(*) FROM image_faces), (SELECT COUNT(*) FROM image_faces WHERE face_count > 0),
                   (SELECT COALESCE(SUM(face_count), 0)::bigint FROM image_faces),
                   (SELECT COALESCE(SUM(face_count), 0)::bigint FROM image_faces WHERE descriptors IS NOT NULL)
            """) { try $0.decode((Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64).self) }
        let (images, failed, labels, observations, scanned, withFaces, faces, described) = row.first ?? (0, 0, 0, 0, 0, 0, 0, 0)
        return IndexStatistics(
            imageCount: Int(images), failedCount: Int(failed), labelCount: Int(labels), observationCount: Int(observations),
            faceScannedCount: Int(scanned), imagesWithFacesCount: Int(withFaces), faceCount: Int(faces), describedFaceCount: Int(described))
    }

    /// The model stamps that produced the indexed files, most used first.
    ///
    /// Usage: `let models = try await index.modelUsage()`
    public func modelUsage() async throws -> [ModelUsage] {
        try await session.all("""
            SELECT models.name, models.version, COUNT(images.id) AS n FROM models
            JOIN images ON images.model_id = models.id GROUP BY models.id ORDER BY n DESC, models.id
            """) { row in
            let (name, version, count) = try row.decode((String, String, Int64).self)
            return ModelUsage(model: ModelStamp(name: name, version: version), imageCount: Int(count))
        }
    }

    /// How many labels at least one image carries.
    ///
    /// Usage: `let inUse = try await index.labelsInUseCount()`
    public func labelsInUseCount() async throws -> Int {
        Int(try await session.all("SELECT COUNT(DISTINCT label_id) FROM observations") { try $0.decode(Int64.self) }.first ?? 0)
    }

    /// Whether any label has a precision/recall curve (calibrated filters can keep something).
    ///
    /// Usage: `if try await index.hasCalibration() { query.calibration = .highRecall }`
    public func hasCalibration() async throws -> Bool {
        try await session.all("SELECT EXISTS(SELECT 1 FROM labels WHERE curve_id IS NOT NULL)") { try $0.decode(Bool.self) }.first ?? false
    }

    /// The database's size on the server, in bytes.
    ///
    /// Usage: `let bytes = try await index.databaseBytes()`
    public func databaseBytes() async throws -> Int64 {
        try await session.all("SELECT pg_database_size(current_database())") { try $0.decode(Int64.self) }.first ?? 0
    }

    /// Closes the connection.
    ///
    /// Usage: `await index.close()`
    public func close() async {
        await session.close()
    }
}
