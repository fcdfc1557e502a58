import ClassifyTestSupport
import Classify
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

/// `LibraryIndexer` on a SQLite file with real (license-clean) photos: incremental runs, moves, deletions, failures,
/// model changes and resuming after cancellation.
@Suite(.serialized)
struct SQLiteIndexingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = repository.appending(path: "Tests/ClassifyTests/Fixtures/photos")
    static let model: ImageClassifierModel = try! ImageClassifierModel(contentsOf: repository.appending(path: "Models/efficientnet-lite0"))

    /// Removed when the test ends.
    let scratch: ScratchFolder
    let folder: URL
    let index: SQLiteIndex
    let indexer: LibraryIndexer
    let classifier: ImageClassifier

    init() throws {
        scratch = try ScratchFolder("indexer")
        folder = scratch.url
        try FileManager.default.createDirectory(at: folder.appending(path: "nested"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.photos.appending(path: "cat-chelsea.jpg"), to: folder.appending(path: "cat.jpg"))
        try FileManager.default.copyItem(at: Self.photos.appending(path: "coffee-cup.jpg"), to: folder.appending(path: "nested/coffee.jpg"))
        try Data("not an image".utf8).write(to: folder.appending(path: "notes.jpg"))
        index = try SQLiteIndex.inMemory()
        indexer = LibraryIndexer(index: index)
        classifier = ImageClassifier(model: Self.model)
    }

    func run(jobs: Int = 2) async throws -> LibraryIndexer.Report {
        try await indexer.run(try LibraryIndexer.Options(folders: [folder.path], jobs: jobs), classifier: classifier)
    }

    func touch(_ url: URL, secondsAgo: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: url.path)
    }

    @Test func firstRunClassifiesEverythingAndRecordsFailures() async throws {
        let report = try await run()
        #expect(report.new == 2 && report.updated == 0)
        #expect(report.summary.failed == 1 && report.failures.map(\.path) == [folder.appending(path: "notes.jpg").path])
        #expect(report.failures.first?.stage == "decode")
        #expect(!report.interrupted)
        let cats = try index.search("cat")
        #expect(cats.hits.map(\.path) == [folder.appending(path: "cat.jpg").path])
        let failed = try index.search("failed")
        #expect(failed.hits.first?.failureStage == "decode")
        let stored = try #require(try index.image(atPath: folder.appending(path: "cat.jpg").path))
        #expect(stored.width == 385 && stored.height == 256 && stored.hasFeaturePrint)
        #expect(stored.model == IndexVocabulary(model: Self.model).stamp)
    }

    /// A claim of several files with room for the bytes of only one: the others are hashed, let go
    /// and read again when classified, and end as the same rows as when every file's bytes are kept.
    @Test func filesBeyondTheHeldBytesAreReadAgain() async throws {
        try FileManager.default.copyItem(at: Self.photos.appending(path: "rocket.jpg"), to: folder.appending(path: "rocket.jpg"))
        var options = try LibraryIndexer.Options(folders: [folder.path], jobs: 1)
        options.claimSize = 4
        options.heldBytes = 1
        let report = try await indexer.run(options, classifier: classifier)
        #expect(report.new == 3 && report.summary.failed == 1)
        let kept = try SQLiteIndex.inMemory()
        options.heldBytes = 1 << 30
        _ = try await LibraryIndexer(index: kept).run(options, classifier: classifier)
        for name in ["cat.jpg", "nested/coffee.jpg", "rocket.jpg"] {
            let path = folder.appending(path: name).path
            let reread = try #require(try index.image(atPath: path)), held = try #require(try kept.image(atPath: path))
            #expect(reread.contentHash != nil && reread.contentHash == held.contentHash && reread.hasFeaturePrint, "\(name)")
            #expect(try index.labels(forPath: path) == kept.labels(forPath: path), "\(name)")
        }
    }

    @Test func secondRunOnlyDoesWhatChanged() async throws {
        _ = try await run()
        let again = try await run()
        #expect(again.summary.unchanged == 3 && again.new == 0 && again.updated == 0 && again.summary.failed == 0)

        // Touched (same bytes, new mtime): labels kept, no classification.
        try touch(folder.appending(path: "cat.jpg"), secondsAgo: 10)
        // Changed content at the same path: classified again.
        try FileManager.default.removeItem(at: folder.appending(path: "nested/coffee.jpg"))
        try FileManager.default.copyItem(at: Self.photos.appending(path: "rocket.jpg"), to: folder.appending(path: "nested/coffee.jpg"))
        try touch(folder.appending(path: "nested/coffee.jpg"), secondsAgo: 5)
        let third = try await run()
        #expect(third.summary.touched == 1)
        #expect(third.updated == 1 && third.new == 0)
        #expect(try index.search("espresso").hits.isEmpty)
    }

    @Test func movedFilesKeepTheirLabelsAndDeletedOnesAreRemoved() async throws {
        _ = try await run()
        try FileManager.default.moveItem(at: folder.appending(path: "cat.jpg"), to: folder.appending(path: "nested/renamed-cat.jpg"))
        try FileManager.default.removeItem(at: folder.appending(path: "notes.jpg"))
        let report = try await run()
        #expect(report.summary.moved == 1 && report.new == 0 && report.updated == 0)
        #expect(report.summary.removed == 1)
        #expect(try index.search("cat").hits.map(\.path) == [folder.appending(path: "nested/renamed-cat.jpg").path])
        #expect(try index.search("failed").hits.isEmpty)
    }

    @Test func anotherModelStampReclassifies() async throws {
        _ = try await run()
        // Pretend the stored labels came from another model version.
        let other = ModelStamp(name: IndexVocabulary(model: Self.model).stamp.name, version: "0")
        let run = try index.beginRun(roots: [folder.path], model: other)
        let plans = try run.plan([FileFacts(path: folder.appending(path: "cat.jpg").path, size: 1, modificationTime: Date())])
        #expect(plans.first?.action == .needsClassification)
        run.cancel()
        let report = try await self.run()
        #expect(report.summary.unchanged == 3)   // same stamp as before: nothing to do
    }

    @Test func cancelledRunWritesWhatFinishedAndRemovesNothing() async throws {
        for copy in 0..<6 {
            try FileManager.default.copyItem(at: Self.photos.appending(path: "rocket.jpg"), to: folder.appending(path: "rocket-\(copy).jpg"))
            // Make every copy distinct content so none is resolved as a copy of another.
            let handle = try FileHandle(forWritingTo: folder.appending(path: "rocket-\(copy).jpg"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([UInt8(copy)]))
            try handle.close()
        }
        let indexer = indexer
        let classifier = classifier
        let folder = folder
        let task = Task {
            try await indexer.run(try LibraryIndexer.Options(folders: [folder.path], jobs: 1), classifier: classifier) { progress in
                if progress.done == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let partial = try await task.value
        #expect(partial.interrupted)
        #expect(partial.summary.removed == 0)
        let written = partial.new + partial.summary.failed
        #expect(written >= 2 && written < 9)
        let resumed = try await run()
        #expect(!resumed.interrupted)
        #expect(resumed.summary.unchanged == written)
        #expect(resumed.new + resumed.summary.failed + resumed.summary.unchanged == 9)
    }
}

/// The two libraries must mean the same thing by "high recall" and "high precision".
struct FilterPresetTests {
    @Test func presetsAgreeAcrossLibraries() {
        guard case .minimumPrecision(let precision, let recall) = CalibratedFilter.highRecall,
            case .minimumRecall(let minimumRecall, let minimumPrecision) = CalibratedFilter.highPrecision
        else {
            Issue.record("presets changed kind")
            return
        }
        #expect(Float(precision) == ObservationFilter.highRecallPoint.precision && Float(recall) == ObservationFilter.highRecallPoint.recall)
        #expect(Float(minimumRecall) == ObservationFilter.highPrecisionPoint.recall && Float(minimumPrecision) == ObservationFilter.highPrecisionPoint.precision)
    }
}
