import Foundation
import ClassifySupport
import GRDB
import Testing
@testable import TagIndex

/// SQLite only: migrations of SQLite files written by earlier versions, and opening files that are
/// not indexes (PostgreSQL migrations: `PostgresBackendTests`).
@Suite struct MigrationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func emptyDatabaseGetsTheCurrentSchema() throws {
        do { _ = try SQLiteIndex(url: directory.databaseURL) }
        let queue = try DatabaseQueue(path: directory.databaseURL.path)
        try queue.read { db in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"])
            #expect(try db.tableExists("corrections"))
            #expect(try db.tableExists("model_labels"))
            #expect(try db.tableExists("label_text"))
            #expect(try db.tableExists("curves"))
            #expect(try !db.tableExists("label_curves"))
            #expect(try db.columns(in: "labels").map(\.name).contains("curve_id"))
            #expect(try db.columns(in: "images").map(\.name).contains("dominant_colors"))
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            let indexes = try db.indexes(on: "observations").map(\.name)
            #expect(indexes.contains("observations_by_rank"))
            // The primary key of the WITHOUT ROWID table answers to its autoindex name.
            let plan = try String.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT image_id FROM observations INDEXED BY \(Schema.primaryKeyIndex) WHERE label_id = 1")
            #expect(plan.count == 1)
        }
    }

    /// Several openers of one new file at once (two `index` runs started together): each gets the
    /// current schema, none fails on the tables another has just created. Connections of one
    /// process lock the file as separate processes do.
    @Test(arguments: 0..<6) func openersOfANewFileAtOnceAllGetTheSchema(round: Int) throws {
        let url = directory.url.appending(path: "together-\(round).sqlite")
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try SQLiteIndex(url: url) } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.withLock { $0 } == [])
        let index = try SQLiteIndex(readingFrom: url)
        #expect(try index.statistics().imageCount == 0)
    }

    @Test func foreignKeysAreOn() throws {
        let index = try SQLiteIndex(url: directory.databaseURL)
        let enabled = try index.database.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(enabled == true)
    }

    @Test func version1DatabaseIsMigratedWithItsData() throws {
        do {
            let queue = try DatabaseQueue(path: directory.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO labels(id, identifier, display_name, synonyms, image_count) VALUES
                        (1, 'dog', 'Dog', '[]', 1),
                        (2, 'golden_retriever', 'Golden Retriever', '["golden"]', 1);
                    INSERT INTO label_parents(label_id, parent_id) VALUES (2, 1);
                    INSERT INTO models(id, name, version) VALUES (1, 'lite0', '1');
                    INSERT INTO images(id, path, size, mtime, content_hash, width, height, model_id, indexed_at)
                        VALUES (1, '/p/a.jpg', 10, 0, 'abcd', 1, 1, 1, 0);
                    INSERT INTO observations(label_id, image_id, best, confidence) VALUES (1, 1, 9000, 9000), (2, 1, 8000, 8000);
                    """)
                try db.execute(
                    sql: "INSERT INTO image_labels(image_id, packed) VALUES (1, ?)",
                    arguments: [Data(PackedLabels.pack([
                        .init(labelID: 1, best: 9000, confidence: 9000), .init(labelID: 2, best: 8000, confidence: 8000),
                    ]))])
            }
            #expect(try queue.read { try Schema.migrator.appliedMigrations($0) } == ["v1"])
        }
        let index = try SQLiteIndex(url: directory.databaseURL)
        #expect(try index.search("retriever").hits.map(\.path) == ["/p/a.jpg"])
        #expect(try index.search("golden").hits.map(\.score) == [0.8])
        #expect(try index.search("dog").hits.map(\.score) == [0.9])
        #expect(try index.search("dog -golden").hits.isEmpty)
        #expect(try index.database.read(Postings.matchObservations))
        let applied = try index.database.read { try Schema.migrator.appliedMigrations($0) }
        #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"])
    }

    @Test func version2CurvesMoveToSharedCurveRows() throws {
        let pooled = [CurvePoint(threshold: 0.1, precision: 0.5, recall: 0.9), CurvePoint(threshold: 0.6, precision: 0.9, recall: 0.4)]
        let own = [CurvePoint(threshold: 0.2, precision: 0.7, recall: 0.8)]
        do {
            let queue = try DatabaseQueue(path: directory.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v2")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO labels(id, identifier, display_name, synonyms, image_count) VALUES
                        (1, 'dog', 'Dog', '[]', 0), (2, 'cat', 'Cat', '[]', 0), (3, 'car', 'Car', '[]', 0),
                        (4, 'boat', 'Boat', '[]', 0);
                    """)
                // Stored in descending threshold order on purpose: the blob keeps them ascending.
                for (label, curve) in [(1, pooled), (2, pooled), (3, own)] {
                    for point in curve.reversed() {
                        try db.execute(
                            sql: "INSERT INTO label_curves(label_id, threshold, precision, recall) VALUES (?, ?, ?, ?)",
                            arguments: [label, point.threshold, point.precision, point.recall])
                    }
                }
            }
        }
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.database.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM curves") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT curve_id) FROM labels WHERE identifier IN ('dog', 'cat')") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels WHERE identifier = 'boat' AND curve_id IS NULL") == 1)
            let snapshot = try TaxonomySnapshot.load(db)
            #expect(snapshot.curves[1] == pooled)
            #expect(snapshot.curves[2] == pooled)
            #expect(snapshot.curves[3] == own)
            #expect(snapshot.curves[4] == nil)
        }
        #expect(try index.hasCalibration())
    }

    @Test func newerSchemaIsRefusedAndLeftUntouched() throws {
        let url = directory.databaseURL
        do {
            let index = try SQLiteIndex(url: url)
            try index.replaceTaxonomy([LabelDefinition(identifier: "dog", displayName: "Dog")], model: .init(name: "m", version: "1"))
        }
        do {
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('v3-colors')")
            }
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try queue.close()
        }
        let before = try Data(contentsOf: url)
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        #expect(throws: TagIndexError.newerSchema(path: url.path, unknownMigrations: ["v3-colors"])) {
            _ = try SQLiteIndex(url: url)
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == modified)
        let message = TagIndexError.newerSchema(path: "x.sqlite", unknownMigrations: ["v3-colors"]).description
        #expect(message.contains("newer version of TagIndex"))
        #expect(message.contains("left untouched"))
    }

    @Test func notADatabaseIsRefused() throws {
        let url = directory.databaseURL
        try Data(repeating: 0x41, count: 4096).write(to: url)
        #expect(throws: TagIndexError.self) { _ = try SQLiteIndex(url: url) }
        #expect(try Data(contentsOf: url) == Data(repeating: 0x41, count: 4096))
    }
}

@Suite struct OpeningTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Another process may hold the file's lock for a moment (the last connection of an index run
    /// cleans up the WAL when it closes): opening waits for it instead of failing with
    /// "database is locked", as `stats` once did while an index run ended.
    @Test func openingWaitsForAShortExclusiveLock() throws {
        let url = directory.databaseURL
        do { _ = try SQLiteIndex(url: url) }
        let holder = try DatabaseQueue(path: url.path)
        try holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE; UPDATE meta SET value = value WHERE 0; COMMIT")
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { try? holder.close() }
        let index = try SQLiteIndex(url: url)
        #expect(try !index.hasCalibration())
    }
}
