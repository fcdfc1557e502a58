import ClassifySupport
import Foundation
import GRDB
import Testing
@testable import TagIndex

/// When the disk refuses: a full disk, a location that cannot hold a database, a damaged file.
/// Each gives a ``TagIndexError/storage(path:reason:)`` that says what to do, and leaves what was
/// written before exactly as it was. SQLite only: these are the SQLite file's failures.
@Suite struct StorageFailureTests {
    static let model = ModelStamp(name: "lite0", version: "1")
    static let labels = [
        LabelDefinition(identifier: "animal", displayName: "Animal"),
        LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"]),
        LabelDefinition(identifier: "cat", displayName: "Cat", parents: ["animal"]),
    ]

    /// `count` classified images named `prefix-N.jpg`, each with a feature print (2.5 KB stored).
    static func batch(_ prefix: String, count: Int, label: String = "dog") -> [IndexEntry] {
        (0..<count).map { number in
            var vector = [Float](repeating: 0.01, count: FeaturePrint.dimension)
            vector[number % FeaturePrint.dimension] = 1
            return .classified(ImageClassification(
                path: "/photos/\(prefix)-\(number).jpg", size: Int64(1000 + number),
                modificationTime: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)),
                contentHash: "\(prefix)\(number)", width: 64, height: 48, model: model,
                observations: [LabelConfidence(identifier: label, confidence: 0.9),
                               LabelConfidence(identifier: "animal", confidence: 0.95)],
                featurePrint: vector))
        }
    }

    static func integrity(_ index: SQLiteIndex) throws -> String {
        try index.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }

    @Test func aFullDiskRefusesTheBatchAndKeepsEverythingBefore() throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        try index.write(batch: Self.batch("before", count: 5))
        let before = try index.statistics()
        // SQLite's own quota stands in for a full disk: the writer connection may not grow the file.
        try index.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let expected = TagIndexError.storage(
            path: directory.databaseURL.path,
            reason: "the disk is full (database or disk is full); nothing written before was lost: free some space and run the command again")
        #expect(throws: expected) { try index.write(batch: Self.batch("after", count: 40, label: "cat")) }
        #expect(expected.description.hasPrefix("cannot use the index at \(directory.databaseURL.path): the disk is full"))

        // Nothing of the refused batch is visible, and the file is sound.
        #expect(try index.statistics() == before)
        #expect(try index.search("cat").totalCount == 0)
        #expect(try index.search("dog").totalCount == 5)
        #expect(try Self.integrity(index) == "ok")

        // With room again, the same batch goes in whole.
        try index.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try index.write(batch: Self.batch("after", count: 40, label: "cat"))
        #expect(try index.search("cat").totalCount == 40)
        #expect(try index.statistics().imageCount == 45)
    }

    @Test func aFullDiskStopsAnIndexRunWithoutLosingItsEarlierBatches() throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        let run = try index.beginRun(roots: ["/photos"], model: Self.model)
        try run.write(batch: Self.batch("first", count: 3))
        try index.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        #expect(throws: TagIndexError.self) { try run.write(batch: Self.batch("second", count: 40)) }
        run.cancel()
        #expect(try index.statistics().imageCount == 3)
        #expect(try Self.integrity(index) == "ok")
        // The lock was released: the next run can start.
        let next = try index.beginRun(roots: ["/photos"], model: Self.model)
        next.cancel()
    }

    @Test func aLocationThatCannotHoldADatabaseIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let notAFolder = directory.url.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: notAFolder)
        let url = notAFolder.appendingPathComponent("index.sqlite")
        #expect(throws: TagIndexError.storage(
            path: url.path,
            reason: "it cannot be opened for writing (unable to open database file); check that its folder exists and is writable, not on a read-only file system")) {
            _ = try SQLiteIndex(url: url)
        }
    }

    @Test func aDamagedFileIsReportedAndLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        do {
            let index = try SQLiteIndex(url: directory.databaseURL)
            try index.replaceTaxonomy(Self.labels, model: Self.model)
            try index.write(batch: Self.batch("a", count: 30))
        }   // closed: the WAL is folded into the file
        let whole = try Data(contentsOf: directory.databaseURL)
        #expect(whole.count > 64 * 1024)
        // Half the file, as a crashed copy or a full disk during a backup would leave it.
        let damaged = whole.prefix(whole.count / 2)
        try damaged.write(to: directory.databaseURL)
        #expect(throws: TagIndexError.storage(
            path: directory.databaseURL.path,
            reason: "the file is damaged (database disk image is malformed); move it away (or restore a backup) and index again")) {
            _ = try SQLiteIndex(url: directory.databaseURL)
        }
        #expect(try Data(contentsOf: directory.databaseURL) == damaged)
    }

    /// Readers running while batches commit see whole batches only: every count they observe is a
    /// multiple of the batch size, and every image they find has its labels.
    @Test func readersNeverSeeHalfABatch() async throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        let batchSize = 7, batches = 40
        let finished = Locked(false)
        let writer = Task.detached {
            defer { finished.withLock { $0 = true } }
            for number in 0..<batches {
                try index.write(batch: Self.batch("b\(number)", count: batchSize))
            }
        }
        let reader = Task.detached { () throws -> Int in
            var observed = 0
            while true {
                let done = finished.withLock { $0 }
                let stats = try index.statistics()
                let dogs = try index.search("dog")
                // Two reads, two snapshots: each on its own must be whole batches.
                #expect(stats.imageCount % batchSize == 0)
                #expect(stats.observationCount == stats.imageCount * 2)
                #expect(dogs.totalCount % batchSize == 0)
                for hit in dogs.hits.prefix(3) {
                    #expect(try index.labels(forPath: hit.path).map(\.identifier) == ["animal", "dog"])
                }
                observed += 1
                if done { return observed }
            }
        }
        try await writer.value
        let reads = try await reader.value
        #expect(reads >= 1)
        #expect(try index.statistics().imageCount == batchSize * batches)
    }
}
