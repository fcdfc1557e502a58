import ClassifyTestSupport
import Classify
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

/// The one way a program keeps any index in sync: `LibraryIndexer` opens the destination through
/// `IndexOpener` and runs the indexer that fits it (the PostgreSQL side runs in the command-line
/// behaviour suites, where a server is available).
struct LibraryIndexerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = repository.appending(path: "Tests/ClassifyTests/Fixtures/photos")

    @Test func aSQLiteLocationIsCreatedWithItsFolderAndIndexed() async throws {
        let scratch = try ScratchFolder("library-indexer")
        let folder = scratch.url.appending(path: "photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.photos.appending(path: "cat-chelsea.jpg"), to: folder.appending(path: "cat.jpg"))
        try Data("not an image".utf8).write(to: folder.appending(path: "notes.jpg"))
        let database = scratch.url.appending(path: "not/yet/there/index.sqlite")

        let indexer = try LibraryIndexer(location: .sqlite(database), opener: IndexOpener())
        #expect(FileManager.default.fileExists(atPath: database.path))
        #expect(try await indexer.installedModel() == nil)
        let classifier = ImageClassifier(model: try ImageClassifierModel(contentsOf: Self.repository.appending(path: "Models/efficientnet-lite0")))
        let report = try await indexer.run(LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder.path)], jobs: 1), classifier: classifier)
        #expect(report.new == 1 && report.summary.failed == 1)
        #expect(try await indexer.installedModel() != nil)

        let index = try await IndexOpener().open(.sqlite(database))
        #expect(try await index.search(try Query(parsing: "cat")).hits.map(\.path) == [folder.appending(path: "cat.jpg").path])
        let again = try await indexer.run(LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder.path)]), classifier: classifier)
        #expect(again.summary.unchanged == 2 && again.new == 0)
    }

    @Test func aNamedRootNeedsASharedIndexAndNothingIsCreatedForIt() throws {
        let scratch = try ScratchFolder("library-indexer-named")
        let database = scratch.url.appending(path: "index.sqlite")
        let named = try LibraryRoot(parsing: "photos=\(scratch.url.path)")
        #expect(throws: TagIndexError.self) { try LibraryIndexer.check([named], for: .sqlite(database)) }
        try LibraryIndexer.check([try LibraryRoot(parsing: scratch.url.path)], for: .sqlite(database))
        try LibraryIndexer.check([named], for: try IndexLocation(parsing: "postgres://me@nas/photos"))
        #expect(!FileManager.default.fileExists(atPath: database.path))
    }

    @Test func aServerLocationWithoutItsBackendSaysWhatIsMissing() throws {
        let location = try IndexLocation(parsing: "postgres://me@nas/photos")
        #expect { try IndexOpener().openForIndexing(location) } throws: { error in
            "\(error)".contains("link TagIndexPostgres")
        }
    }
}
