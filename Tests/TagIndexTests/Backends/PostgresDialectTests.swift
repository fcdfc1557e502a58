import Foundation
import GRDB
import PostgresNIO
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// The PostgreSQL dialect of the search language against the SQLite one: the same plan (one
/// AST, terms resolved once) compiled by each dialect must match the same images with the same
/// scores, on a copy of the same index.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDialectTests {
    /// Labels, synonyms, parents, prefixes, boolean operators, per-term thresholds.
    static let queries = [
        "dog", "animal", "golden", "puppy", "kitty", "retr*", "golden_retriever", "lab",
        "dog -poodle", "dog OR beach", "dog cat", "animal -(dog OR cat)", "(dog OR beach) -indoor", "dog:0.85",
        "animal indoor", "-dog", "outdoor -grass -beach", "dog AND NOT (poodle OR golden)", "grass",
        "(dog OR cat) (indoor OR outdoor)", "dog:0.5 OR cat:0.9", "NOT (dog OR beach OR tabby)", "animal -dog:0.9 -cat:0.5",
        "(animal -dog) OR (outdoor -beach)", "dog (-poodle -golden)",
    ]

    @Test(arguments: [nil, 0.3, 0.85])
    func everyQueryMatchesTheSameImagesWithTheSameScores(minimumConfidence: Double?) async throws {
        let fixture = try FixtureIndex()
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        _ = try await IndexCopy.copy(from: fixture.index, to: session)
        for text in Self.queries {
            var query = try Query(parsing: text)
            if let minimumConfidence { query.minimumConfidence = minimumConfidence }
            try await Self.compare(query, text: text, fixture.index, session)
        }
    }

    @Test(arguments: ["high-precision", "high-recall", "precision-0.95"])
    func calibratedQueriesMatchTheSameImages(filter: String) async throws {
        let fixture = try FixtureIndex()
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        _ = try await IndexCopy.copy(from: fixture.index, to: session)
        for text in ["dog", "cat OR dog", "animal -cat", "golden_retriever", "beach", "dog -poodle", "(dog OR cat) -indoor"] {
            var query = try Query(parsing: text)
            query.calibration = switch filter {
            case "high-precision": .highPrecision
            case "high-recall": .highRecall
            default: .precision(0.95)
            }
            try await Self.compare(query, text: "\(text) [\(filter)]", fixture.index, session)
        }
    }

    @Test func failedImagesAreTheUniverseOfAFailedSearch() async throws {
        let fixture = try FixtureIndex()
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        _ = try await IndexCopy.copy(from: fixture.index, to: session)
        var query = try Query(parsing: "-dog")
        query.filters.status = .failed
        let matched = try await Self.compare(query, text: "-dog (failed)", fixture.index, session)
        #expect(matched.count == 1, "the one failed file")
    }

    /// Runs `query`'s plan through both dialects, expects equal (image, score) sets, returns them.
    @discardableResult
    static func compare(_ query: Query, text: String, _ index: SQLiteIndex, _ session: PostgresSession) async throws -> [Int64: Int] {
        let (plan, total, expected) = try sqlitePlanAndRows(query, index)
        let binder = SQLBinder(PostgresDialect())
        var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)
        let sql = compiler.set(plan)
        #expect(!sql.contains("'"), "no literal in the SQL of \(text): \(sql)")
        var actual: [Int64: Int] = [:]
        for (id, score) in try await session.all(sql, binder.postgresBindings, { try $0.decode((Int64, Int?).self) }) {
            #expect(actual[id] == nil, "\(text): image \(id) twice")
            actual[id] = score ?? -1
        }
        #expect(actual == expected, "\(text)\nSQLite: \(expected.sorted { $0.key < $1.key })\nPostgreSQL: \(actual.sorted { $0.key < $1.key })")
        return actual
    }

    /// The plan of `query` on the SQLite index and the rows of the SQLite dialect (score -1 for NULL).
    static func sqlitePlanAndRows(_ query: Query, _ index: SQLiteIndex) throws -> (MatchPlan, Int, [Int64: Int]) {
        try index.database.read { db -> (MatchPlan, Int, [Int64: Int]) in
            let taxonomy = try index.taxonomy(db)
            let total = try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0
            let plan = try MatchPlanner(db: db, taxonomy: taxonomy, query: query).plan(query.expression!)
            let binder = SQLBinder(SQLiteDialect())
            var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)
            let sql = compiler.set(plan)
            #expect(!sql.contains("'"), "no literal in the SQL: \(sql)")
            var rows: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: binder.statementArguments) {
                rows[row[0]] = (row[1] as Int?) ?? -1
            }
            return (plan, total, rows)
        }
    }
}

/// Whole search pages on PostgreSQL against `SQLiteIndex.search` on SQLite (which takes its dense
/// or SQL path as it would for a user): same hits in the same order, scores, totals and facets.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresSearchPageTests {
    static let queries = [
        "dog", "animal", "dog -poodle", "dog OR beach", "(dog OR beach) -indoor", "retr*", "-dog",
        "dog under:/lib/a", "animal under:/lib/b type:jpg", "type:PNG", "animal after:2023-11-16 before:2023-11-20",
        "animal minwidth:1500", "animal minheight:1500 maxsize:1MB", "minsize:1MB", "untagged", "failed", "min:0.9 untagged",
        "dog:0.85 OR cat", "(dog OR cat) filter:high-precision", "filter:high-recall untagged", "recall:0.8 animal", "animal faces:0", "faces:1+",
    ]

    @Test func pagesMatchTheSQLiteIndex() async throws {
        let fixture = try FixtureIndex()
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        _ = try await IndexCopy.copy(from: fixture.index, to: session)
        for text in Self.queries {
            for (sort, limit, page, facets) in [(SortOrder.confidence, 50, 1, 0), (.confidence, 2, 2, 5), (.path, 3, 1, 3), (.date, 2, 3, 20)] {
                var query = try Query(parsing: text)
                query.sort = sort
                query.limit = limit
                query.page = page
                query.facetCount = facets
                let expected = try fixture.index.search(query)
                let actual = try await Self.postgresPage(query, fixture.index, session)
                let label = "\(text) sort \(sort) limit \(limit) page \(page) facets \(facets)"
                #expect(actual.hits.map(\.path) == expected.hits.map(\.path), "\(label)")
                #expect(actual.hits == expected.hits, "\(label)")
                #expect(actual.totalCount == expected.totalCount, "\(label)")
                #expect(actual.facets == expected.facets, "\(label)")
            }
        }
    }

    static func postgresPage(_ query: Query, _ index: SQLiteIndex, _ session: PostgresSession) async throws -> SearchPage {
        let (plan, total, taxonomy) = try resolved(query, index)
        return try await PostgresSearcher(query: query, taxonomy: taxonomy, addedLabelIDs: try await PostgresSearcher.addedLabelIDs(session))
            .run(plan, total: total, session)
    }

    /// The plan as `SQLiteIndex` resolves it (term resolution is shared, not yet run on PostgreSQL).
    static func resolved(_ query: Query, _ index: SQLiteIndex) throws -> (MatchPlan, Int, TaxonomySnapshot) {
        try index.database.read { db in
            let taxonomy = try index.taxonomy(db)
            let total = try Int.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0
            let plan = try query.expression.map { try MatchPlanner(db: db, taxonomy: taxonomy, query: query).plan($0) } ?? .all
            return (plan, total, taxonomy)
        }
    }
}
