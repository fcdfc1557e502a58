import ClassifyTestSupport
import Classify
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

/// A run begun with a model's labels while its network still loads (`index` does this), then run
/// with the loaded model: the same index as a run given the model at once; a begun run that is
/// cancelled or given another model leaves the index free.
@Suite(.serialized)
struct BegunRunTests {
    static let modelDirectory = SQLiteIndexingTests.repository.appending(path: "Models/efficientnet-lite0")

    let scratch: ScratchFolder
    let folder: URL

    init() throws {
        scratch = try ScratchFolder("begun-run")
        folder = scratch.url.appending(path: "photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SQLiteIndexingTests.photos.appending(path: "cat-chelsea.jpg"), to: folder.appending(path: "cat.jpg"))
    }

    @Test func aRunBegunWhileTheNetworkLoadsIndexesAsARunGivenTheModel() async throws {
        let loading = try ImageClassifierModel.Loading(contentsOf: Self.modelDirectory)
        let index = try SQLiteIndex.inMemory()
        let indexer = LibraryIndexer(index: index)
        let vocabulary = IndexVocabulary(labelSet: try loading.labelSet(), description: loading.description)
        let begun = try await indexer.begin(try LibraryIndexer.Options(folders: [folder.path]), vocabulary: vocabulary)
        let model = try loading.model()
        let report = try await indexer.run(begun, classifier: ImageClassifier(model: model))
        #expect(report.new == 1 && report.summary.failed == 0)
        #expect(try index.search("cat").hits.map(\.path) == [folder.appending(path: "cat.jpg").path])
        // The labels the loading gave first are the model's, and the stamp is the one a run given
        // the model at once stores.
        #expect(try loading.labelSet().taxonomy.labels.map(\.identifier) == model.labelSet.taxonomy.labels.map(\.identifier))
        let stored = try #require(try index.image(atPath: folder.appending(path: "cat.jpg").path))
        #expect(stored.model == IndexVocabulary(model: SQLiteIndexingTests.model).stamp)
    }

    @Test func aCancelledBegunRunLeavesTheIndexFree() async throws {
        let database = scratch.url.appending(path: "index.sqlite")
        let indexer = LibraryIndexer(index: try SQLiteIndex(url: database))
        let options = try LibraryIndexer.Options(folders: [folder.path])
        let vocabulary = IndexVocabulary(model: SQLiteIndexingTests.model)
        let begun = try await indexer.begin(options, vocabulary: vocabulary)
        await #expect(throws: TagIndexError.anotherRunInProgress(path: database.path)) {
            _ = try await indexer.begin(options, vocabulary: vocabulary)
        }
        begun.cancel()
        let report = try await indexer.run(options, classifier: ImageClassifier(model: SQLiteIndexingTests.model))
        #expect(report.new == 1)
    }

    /// A classifier of another model than the one the run was begun for: refused, and the run ends.
    @Test func aRunRefusesAnotherModelsClassifier() async throws {
        let index = try SQLiteIndex.inMemory()
        let indexer = LibraryIndexer(index: index)
        let options = try LibraryIndexer.Options(folders: [folder.path])
        let model = SQLiteIndexingTests.model
        var renamed = model.description
        renamed.name += "-other"
        let begun = try await indexer.begin(options, vocabulary: IndexVocabulary(labelSet: model.labelSet, description: renamed))
        await #expect(throws: TagIndexError.self) {
            _ = try await indexer.run(begun, classifier: ImageClassifier(model: model))
        }
        let report = try await indexer.run(options, classifier: ImageClassifier(model: model))
        #expect(report.new == 1)
    }
}
