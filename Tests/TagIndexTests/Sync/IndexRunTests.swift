import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// SQLite index runs: plans, copies found by content, removals, the writer lock. SQLite only: the
/// PostgreSQL writer (work queue, leased claims) has `PostgresIndexRunTests`.
@Suite struct IndexRunTests {
    let directory: TemporaryDirectory
    let index: SQLiteIndex
    static let model = ModelStamp(name: "lite0", version: "1")
    static let labels = [
        LabelDefinition(identifier: "animal", displayName: "Animal"),
        LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"]),
        LabelDefinition(identifier: "cat", displayName: "Cat", parents: ["animal"]),
    ]

    init() throws {
        directory = try TemporaryDirectory()
        index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
    }

    var root: String { directory.path("photos") }
    func path(_ name: String) -> String { root + "/" + name }

    func facts(_ name: String, size: Int64 = 100, day: Double = 0) -> FileFacts {
        FileFacts(path: path(name), size: size, modificationTime: Date(timeIntervalSince1970: 1_000_000 + day * 86_400))
    }

    func result(_ facts: FileFacts, hash: String, label: String, model: ModelStamp = IndexRunTests.model)
        -> IndexEntry
    {
        .classified(ImageClassification(
            path: facts.path, size: facts.size, modificationTime: facts.modificationTime, contentHash: hash,
            width: 10, height: 10, model: model,
            observations: [LabelConfidence(identifier: label, confidence: 0.9),
                           LabelConfidence(identifier: "animal", confidence: 0.95)]))
    }

    /// A full run: plan, resolve candidates with `hashes`, classify the rest as `labels`.
    func run(
        _ files: [FileFacts], hashes: [String: String], labels: [String: String],
        model: ModelStamp = IndexRunTests.model
    ) throws -> (RunSummary, [String: Resolution]) {
        let run = try index.beginRun(roots: [root], model: model)
        var resolutions: [String: Resolution] = [:]
        var batch: [IndexEntry] = []
        for plan in try run.plan(files) where plan.action == .needsClassification {
            let name = URL(fileURLWithPath: plan.facts.path).lastPathComponent
            let resolution = try run.resolve(plan.facts, contentHash: hashes[name]!)
            resolutions[name] = resolution
            if resolution == .classify {
                batch.append(result(plan.facts, hash: hashes[name]!, label: labels[name] ?? "dog", model: model))
            }
        }
        try run.write(batch: batch)
        return (try run.finish(), resolutions)
    }

    func indexedPaths() throws -> [String] {
        try index.search("").hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }.sorted()
    }

    @Test func firstRunClassifiesEverythingSecondNothing() throws {
        let files = [facts("a.jpg"), facts("b.jpg"), facts("c.jpg")]
        let hashes = ["a.jpg": "aaaa", "b.jpg": "bbbb", "c.jpg": "cccc"]
        let (first, resolutions) = try run(files, hashes: hashes, labels: ["c.jpg": "cat"])
        #expect(first == RunSummary(scanned: 3, unchanged: 0, classified: 3))
        #expect(Set(resolutions.values) == [.classify])
        let (second, again) = try run(files, hashes: hashes, labels: [:])
        #expect(second == RunSummary(scanned: 3, unchanged: 3))
        #expect(again.isEmpty)
        #expect(try index.search("cat").hits.map(\.path) == [path("c.jpg")])
    }

    @Test func newChangedTouchedMovedCopiedAndDeleted() throws {
        let (initial, _) = try run(
            [facts("a.jpg"), facts("b.jpg"), facts("c.jpg"), facts("gone.jpg")],
            hashes: ["a.jpg": "aaaa", "b.jpg": "bbbb", "c.jpg": "cccc", "gone.jpg": "9999"],
            labels: ["c.jpg": "cat"])
        #expect(initial.classified == 4)
        // b.jpg exists on disk (so a copy of it is a copy); c.jpg does not (so it moved).
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path("b.jpg"), contents: Data("b".utf8)))

        let files = [
            facts("a.jpg", size: 200, day: 1),  // changed content
            facts("b.jpg", day: 1),  // touched: new mtime, same content
            facts("renamed.jpg"),  // c.jpg moved here
            facts("b-copy.jpg"),  // same content as b.jpg
            facts("new.jpg"),  // new
        ]
        let (summary, resolutions) = try run(
            files,
            hashes: ["a.jpg": "a2a2", "b.jpg": "bbbb", "renamed.jpg": "cccc", "b-copy.jpg": "bbbb", "new.jpg": "eeee"],
            labels: ["a.jpg": "cat"])
        #expect(resolutions["a.jpg"] == .classify)
        #expect(resolutions["b.jpg"] == .touched)
        #expect(resolutions["renamed.jpg"] == .moved(from: path("c.jpg")))
        #expect(resolutions["b-copy.jpg"] == .copied(from: path("b.jpg")))
        #expect(resolutions["new.jpg"] == .classify)
        #expect(summary == RunSummary(
            scanned: 5, unchanged: 0, classified: 2, failed: 0, touched: 1, moved: 1, copied: 1, removed: 1))
        #expect(try indexedPaths() == ["a.jpg", "b-copy.jpg", "b.jpg", "new.jpg", "renamed.jpg"])
        // Moved and copied files kept their labels; a.jpg was re-labelled.
        #expect(try index.search("cat").hits.map(\.path).sorted() == [path("a.jpg"), path("renamed.jpg")])
        #expect(try index.labels(forPath: path("b-copy.jpg")).map(\.identifier) == ["animal", "dog"])
        #expect(try index.search("animal").totalCount == 5)
        // Everything is now unchanged.
        let (after, _) = try run(files, hashes: [:], labels: [:])
        #expect(after == RunSummary(scanned: 5, unchanged: 5))
        // Counts and postings stay exact through deletes, moves and copies.
        #expect(try index.search("dog").totalCount == 3)
        #expect(try index.database.read(Postings.matchObservations))
    }

    @Test func anotherModelReclassifies() throws {
        let files = [facts("a.jpg"), facts("b.jpg")]
        let hashes = ["a.jpg": "aaaa", "b.jpg": "bbbb"]
        _ = try run(files, hashes: hashes, labels: [:])
        let newer = ModelStamp(name: "lite0", version: "2")
        let (summary, resolutions) = try run(files, hashes: hashes, labels: ["a.jpg": "cat", "b.jpg": "cat"], model: newer)
        #expect(summary == RunSummary(scanned: 2, unchanged: 0, classified: 2))
        #expect(Set(resolutions.values) == [.classify])
        #expect(try index.search("cat").totalCount == 2)
        #expect(try index.search("dog").totalCount == 0)
    }

    @Test func killedRunResumesWithoutRedoingFinishedFiles() throws {
        let files = [facts("a.jpg"), facts("b.jpg"), facts("c.jpg")]
        do {
            let crashed = try index.beginRun(roots: [root], model: Self.model)
            let plans = try crashed.plan(files)
            try crashed.write(batch: [result(plans[0].facts, hash: "aaaa", label: "dog"),
                                      result(plans[1].facts, hash: "bbbb", label: "dog")])
            // No finish(): the process "dies" here; deinit releases the lock as the kernel would.
        }
        let (summary, resolutions) = try run(files, hashes: ["c.jpg": "cccc"], labels: [:])
        #expect(summary == RunSummary(scanned: 3, unchanged: 2, classified: 1))
        #expect(Array(resolutions.keys) == ["c.jpg"])
    }

    @Test func secondWriterGetsAClearError() throws {
        let other = try SQLiteIndex(url: directory.databaseURL)
        let first = try index.beginRun(roots: [root], model: Self.model)
        #expect(throws: TagIndexError.anotherRunInProgress(path: directory.databaseURL.path)) {
            _ = try other.beginRun(roots: [root], model: Self.model)
        }
        #expect(throws: TagIndexError.anotherRunInProgress(path: directory.databaseURL.path)) {
            _ = try index.beginRun(roots: [root], model: Self.model)
        }
        let message = TagIndexError.anotherRunInProgress(path: "DB").description
        #expect(message.hasPrefix("another index run is writing to DB"))
        _ = try first.finish()
        #expect(throws: TagIndexError.runFinished) { _ = try first.plan([]) }
        let second = try other.beginRun(roots: [root], model: Self.model)
        second.cancel()
    }

    @Test func readersSeeASnapshotWhileAWriterIsBusy() throws {
        _ = try run([facts("a.jpg")], hashes: ["a.jpg": "aaaa"], labels: [:])
        let index = self.index
        let written = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        // The writer deletes every observation and keeps its transaction open
        // until the reader has searched.
        Thread.detachNewThread {
            try? index.database.write { db in
                try db.execute(sql: "DELETE FROM observations")
                written.signal()
                _ = readDone.wait(timeout: .now() + 600)
            }
            committed.signal()
        }
        // The waits are hang guards only. A reader that waited for the writer would see the
        // deletion (or time out busy), so the answer alone proves it read the snapshot.
        #expect(written.wait(timeout: .now() + 600) == .success)
        let during = try index.search("dog").hits.map(\.path)
        readDone.signal()
        #expect(during == [path("a.jpg")])
        #expect(committed.wait(timeout: .now() + 600) == .success)
        #expect(try index.search("dog").hits.isEmpty)
    }

    @Test func removePathsAndFailures() throws {
        let a = facts("a.jpg")
        try index.write(batch: [
            result(a, hash: "aaaa", label: "dog"),
            .failed(ImageFailure(path: path("bad.jpg"), size: 100, modificationTime: a.modificationTime,
                                 contentHash: nil, model: Self.model, stage: "decode", reason: "not a JPEG")),
        ])
        #expect(try index.statistics() == IndexStatistics(imageCount: 1, failedCount: 1, labelCount: 3, observationCount: 2))
        // An unchanged failure is not retried by the next run.
        let run = try index.beginRun(roots: [root], model: Self.model)
        #expect(try run.plan([facts("bad.jpg")]).map(\.action) == [.unchanged])
        run.cancel()
        #expect(try index.remove(paths: [path("a.jpg"), path("missing.jpg")]) == 1)
        #expect(try index.database.read(Postings.matchObservations))
        #expect(try index.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM label_postings") } == 0)
        #expect(try index.statistics() == IndexStatistics(imageCount: 0, failedCount: 1, labelCount: 3, observationCount: 0))
        #expect(try index.search("animal").totalCount == 0)
    }

    @Test func unknownLabelsAndFeaturePrintsAreStored() throws {
        var vector = [Float](repeating: 0, count: FeaturePrint.dimension)
        vector[0] = 3
        vector[1] = 4
        let a = facts("a.jpg")
        try index.write(batch: [.classified(ImageClassification(
            path: a.path, size: a.size, modificationTime: a.modificationTime, contentHash: "aaaa",
            width: 1, height: 1, model: Self.model,
            observations: [LabelConfidence(identifier: "zebra_crossing", confidence: 0.5),
                           LabelConfidence(identifier: "dog", confidence: 0.001)],
            featurePrint: vector))])
        #expect(try index.search("zebra_crossing").hits.map(\.path) == [a.path])
        #expect(try index.search("crossing").hits.map(\.path) == [a.path])
        #expect(try index.search("dog").totalCount == 0)
        let stored = try #require(try index.featurePrint(forPath: a.path))
        #expect(stored.count == 1280)
        #expect(abs(stored[0] - 0.6) < 0.001)
        #expect(abs(stored[1] - 0.8) < 0.001)
        var wrong = ImageClassification(
            path: a.path, size: 1, modificationTime: a.modificationTime, contentHash: "x", width: 1, height: 1,
            model: Self.model, observations: [])
        wrong.featurePrint = [1, 2, 3]
        #expect(throws: TagIndexError.invalidInput("a feature print has 1280 values; got 3")) {
            try index.write(batch: [.classified(wrong)])
        }
    }

    @Test func taxonomyReplacementIsIdempotentAndUpdatesSubtrees() throws {
        _ = try run([facts("a.jpg")], hashes: ["a.jpg": "aaaa"], labels: ["a.jpg": "cat"])
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        #expect(try index.statistics().labelCount == 3)
        #expect(try index.search("animal").totalCount == 1)
        // Move cat under a new parent "pet": searches for pet now find it, animal no longer.
        let reshaped = [
            LabelDefinition(identifier: "animal", displayName: "Animal"),
            LabelDefinition(identifier: "pet", displayName: "Pet"),
            LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"]),
            LabelDefinition(identifier: "cat", displayName: "Cat", parents: ["pet"]),
        ]
        try index.replaceTaxonomy(reshaped, model: Self.model)
        #expect(try index.search("pet").hits.map(\.score) == [0.9])
        #expect(try index.database.read(Postings.matchObservations))
        // animal keeps its own observation (0.95 from the classifier).
        #expect(try index.search("animal").hits.map(\.score) == [0.95])
        #expect(throws: TagIndexError.self) {
            try index.replaceTaxonomy([LabelDefinition(identifier: "x", displayName: "X", parents: ["y"])], model: Self.model)
        }
        #expect(throws: TagIndexError.invalidInput("the taxonomy has a cycle through 'a'")) {
            try index.replaceTaxonomy([
                LabelDefinition(identifier: "a", displayName: "A", parents: ["b"]),
                LabelDefinition(identifier: "b", displayName: "B", parents: ["a"]),
            ], model: Self.model)
        }
    }
}
