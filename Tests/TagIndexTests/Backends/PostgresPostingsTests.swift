import Foundation
import PostgresNIO
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// PostgreSQL's compacted postings: copied from SQLite as they are, changed blocks read from
/// observations until compaction, compaction that mirrors observations, and a writer that commits
/// during a compaction leaving its block changed.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresPostingsTests {
    static let searches = [
        "dog OR cat", "animal -dog", "indoor -dog", "(dog OR cat) indoor", "animal beach", "dog OR beach OR indoor",
        "animal:0.3 -poodle", "kitty OR golden", "animal", "dog filter:high-recall", "animal filter:high-precision",
    ]

    /// Every search by the three engines: `postings` and `sql` must give one answer, with facets
    /// too, and not an empty one.
    static func expectEnginesAgree(_ index: PostgresIndex, _ searches: [String] = searches, context: String) async throws {
        for text in searches {
            var sql = try Query(parsing: text)
            sql.facetCount = 10
            sql.engine = .sql
            var postings = sql
            postings.engine = .postings
            var automatic = sql
            automatic.engine = .automatic
            let expected = try await index.search(sql)
            #expect(!expected.hits.isEmpty, "\(text), \(context)")
            #expect(try await index.search(postings) == expected, "\(text), \(context)")
            #expect(try await index.search(automatic) == expected, "\(text), \(context)")
        }
    }

    static func changedBlocks(_ session: PostgresSession) async throws -> Int {
        try await PostgresPostings.changedBlockCount(session)
    }

    @Test func aCopyIsCompacted() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        #expect(try await Self.changedBlocks(postgres.session) == 0)
        #expect(try await PostgresPostings.matchObservations(postgres.session))
        #expect(try await PostgresPostings.printsMatchImages(postgres.session))
        let stored = try await postgres.session.all("SELECT COUNT(*) FROM label_posting_groups") { try $0.decode(Int64.self) }
        #expect(stored.first ?? 0 > 0)
        try await Self.expectEnginesAgree(postgres, context: "after the copy")
    }

    @Test func changedBlocksAreReadFromObservationsUntilCompacted() async throws {
        let fixture = try FixtureIndex()
        try fixture.index.write(batch: BackendAgreementTests.printsAndColors())
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        let session = postgres.session
        // Writers' changes, as statements on observations: an image loses its labels, another's
        // confidences change, and one gains a label it did not have.
        let ids = try await session.all("SELECT id FROM images WHERE error_stage IS NULL ORDER BY id") { try $0.decode(Int64.self) }
        try #require(ids.count >= 3)
        var first = PostgresBindings()
        first.append(ids[0])
        try await session.execute("DELETE FROM observations WHERE image_id = $1", first)
        var second = PostgresBindings()
        second.append(ids[1])
        try await session.execute("UPDATE observations SET best = best / 3 WHERE image_id = $1", second)
        var third = PostgresBindings()
        third.append(ids[2])
        try await session.execute("""
            INSERT INTO observations(label_id, image_id, best, confidence)
            SELECT id, $1, 9000, 9000 FROM labels WHERE identifier = 'n02099712'
            ON CONFLICT (label_id, image_id) DO NOTHING
            """, third)
        // A writer replaces one image's print with another's: similar images read it from
        // `images` while the block is changed, and from `image_prints` once compacted.
        let printed = try await session.all("SELECT id, path FROM images WHERE feature_print IS NOT NULL ORDER BY id") {
            try $0.decode((Int64, String).self)
        }
        try #require(printed.count >= 3)
        let similarBefore = try await postgres.similar(toPath: printed[0].1)
        var swap = PostgresBindings()
        swap.append(printed[1].0)
        swap.append(printed[2].0)
        try await session.execute("UPDATE images SET feature_print = (SELECT feature_print FROM images WHERE id = $1) WHERE id = $2", swap)
        let similarChanged = try await postgres.similar(toPath: printed[0].1)
        #expect(similarChanged != similarBefore, "the replaced print is read from images")
        #expect(try await Self.changedBlocks(session) == 1)
        // The postings are now stale for that block: searches must read its observations.
        #expect(try await PostgresPostings.matchObservations(session), "clean blocks still mirror observations")
        try await Self.expectEnginesAgree(postgres, context: "with a changed block")

        // Compaction rebuilds from image_labels, which writers keep beside observations: bring
        // the three images' packed labels in line as a writer would, then compact.
        for image in ids.prefix(3) {
            var binds = PostgresBindings()
            binds.append(image)
            let entries = try await session.all(
                "SELECT label_id, best, confidence FROM observations WHERE image_id = $1 ORDER BY label_id", binds
            ) { row in
                let (label, best, confidence) = try row.decode((Int64, Int, Int?).self)
                return PackedLabels.Entry(labelID: label, best: best, confidence: confidence)
            }
            var update = PostgresBindings()
            update.append(ByteBuffer(bytes: PackedLabels.pack(entries)))
            update.append(image)
            try await session.execute("UPDATE image_labels SET packed = $1 WHERE image_id = $2", update)
        }
        #expect(try await PostgresPostings.compact(session) == 1)
        #expect(try await postgres.similar(toPath: printed[0].1) == similarChanged)
        #expect(try await Self.changedBlocks(session) == 0)
        #expect(try await PostgresPostings.matchObservations(session))
        #expect(try await PostgresPostings.printsMatchImages(session))
        try await Self.expectEnginesAgree(postgres, context: "after compaction")
    }

    /// Images far apart in the id space land in different groups of 16 blocks (`PostingGroups`):
    /// each group compacts on its own, and a change in one makes only that group read from
    /// observations.
    @Test func groupsOfBlocksCompactAndReadApart() async throws {
        let fixture = try FixtureIndex()
        try fixture.index.write(batch: BackendAgreementTests.printsAndColors())
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        let session = postgres.session
        // Copies of three indexed images (rows, labels, prints) at ids in groups 1 and 2, as a
        // writer would store them.
        let sources = try await session.all(
            "SELECT image_id FROM image_labels ORDER BY image_id LIMIT 3") { try $0.decode(Int64.self) }
        try #require(sources.count == 3)
        for (source, id) in zip(sources, [70_000, 140_000, 140_001] as [Int64]) {
            var binds = PostgresBindings()
            binds.append(source)
            binds.append(id)
            var sourceOnly = PostgresBindings()
            sourceOnly.append(source)
            var idOnly = PostgresBindings()
            idOnly.append(id)
            try await session.execute("CREATE TEMP TABLE far_image AS SELECT * FROM images WHERE id = $1", sourceOnly)
            try await session.execute("UPDATE far_image SET id = $1, path = path || '.far'", idOnly)
            try await session.execute("INSERT INTO images SELECT * FROM far_image")
            try await session.execute("DROP TABLE far_image")
            try await session.execute(
                "INSERT INTO observations(label_id, image_id, best, confidence) SELECT label_id, $2, best, confidence FROM observations WHERE image_id = $1",
                binds)
            try await session.execute("INSERT INTO image_labels(image_id, packed) SELECT $2, packed FROM image_labels WHERE image_id = $1", binds)
        }
        let counts = "UPDATE labels SET image_count = (SELECT COUNT(*) FROM observations WHERE label_id = labels.id)"
        try await session.execute(counts)
        #expect(try await PostgresPostings.changedGroupCount(session) == 2)
        try await Self.expectEnginesAgree(postgres, context: "three groups, two changed")
        #expect(try await PostgresPostings.compact(session) == 2, "blocks 17 and 34, in groups 1 and 2")
        #expect(try await PostgresPostings.changedGroupCount(session) == 0)
        #expect(try await PostgresPostings.matchObservations(session))
        #expect(try await PostgresPostings.printsMatchImages(session))
        let rows = try await session.all("SELECT DISTINCT block_group FROM label_posting_groups ORDER BY 1") { try $0.decode(Int64.self) }
        #expect(rows == [0, 1, 2])
        try await Self.expectEnginesAgree(postgres, context: "three groups compacted")
        // One far image loses its labels: its group is read from observations until compacted.
        var far = PostgresBindings()
        far.append(Int64(140_001))
        try await session.execute("DELETE FROM observations WHERE image_id = $1", far)
        try await session.execute("DELETE FROM image_labels WHERE image_id = $1", far)
        try await session.execute(counts)
        #expect(try await PostgresPostings.changedGroupCount(session) == 1)
        try await Self.expectEnginesAgree(postgres, context: "group 2 changed")
        #expect(try await PostgresPostings.compact(session) == 1)
        #expect(try await PostgresPostings.matchObservations(session))
        try await Self.expectEnginesAgree(postgres, context: "group 2 compacted again")
    }

    @Test func aWriterCommittingDuringCompactionLeavesItsBlockChanged() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        let writer = try await PostgresSession.connect(postgres.session.descriptor)
        defer { Task { await writer.close() } }
        let id = try #require(try await postgres.session.all("SELECT MIN(id) FROM images WHERE error_stage IS NULL") { try $0.decode(Int64.self) }.first)
        var binds = PostgresBindings()
        binds.append(id)
        // The writer's transaction is open (not committed) while compaction runs.
        try await writer.execute("BEGIN")
        try await writer.execute("DELETE FROM observations WHERE image_id = $1", binds)
        #expect(try await PostgresPostings.compact(postgres.session) == 0, "nothing committed to compact")
        try await writer.execute("COMMIT")
        #expect(try await Self.changedBlocks(postgres.session) == 1, "the writer's block stays changed")
        try await Self.expectEnginesAgree(postgres, context: "after the writer committed")
    }

    @Test func oneProcessCompactsAtATimeAndTheOthersWaitOrLeaveIt() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        let session = postgres.session
        // A writer takes an image's labels away (from both tables, as writers do).
        let image = try #require(try await session.all("SELECT MIN(image_id) FROM observations") { try $0.decode(Int64.self) }.first)
        var binds = PostgresBindings()
        binds.append(image)
        try await session.execute("DELETE FROM observations WHERE image_id = $1", binds)
        try await session.execute("DELETE FROM image_labels WHERE image_id = $1", binds)
        #expect(try await Self.changedBlocks(session) == 1)
        // Another process is compacting (it holds the lock in its transaction).
        let other = try await PostgresSession.connect(session.descriptor)
        defer { Task { await other.close() } }
        var key = PostgresBindings()
        key.append(PostgresPostings.compactionLock)
        try await other.execute("BEGIN")
        try await other.execute("SELECT pg_advisory_xact_lock($1)", key)
        #expect(try await PostgresPostings.compact(session, waiting: false) == 0, "a heartbeat leaves it")
        #expect(try await Self.changedBlocks(session) == 1)
        let waiting = Task { try await PostgresPostings.compact(session) }
        try await other.execute("COMMIT")
        #expect(try await waiting.value == 1, "a run's end waits and compacts")
        #expect(try await Self.changedBlocks(session) == 0)
        try await Self.expectEnginesAgree(postgres, context: "after the wait")
    }

    @Test func anEmptyDatabaseHasNothingToCompact() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        defer { Task { await session.close() } }
        try await PostgresSchema.migrate(session)
        #expect(try await Self.changedBlocks(session) == 0, "an empty database has nothing to compact")
        #expect(try await PostgresPostings.compact(session) == 0)
    }
}
