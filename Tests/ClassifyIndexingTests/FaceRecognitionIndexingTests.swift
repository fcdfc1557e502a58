import ClassifyTestSupport
import Classify
import ClassifySupport
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

/// Faces described as `index` finds them: the recognizer loads only when a face needs
/// describing, a recognizer that does not load leaves the faces stored without descriptors (and
/// says why), and the next run describes them from their stored boxes.
struct FaceRecognitionIndexingTests {
    static let repository = LibraryIndexerTests.repository
    static let models = repository.appending(path: "Models")

    /// A scratch folder (removed when the returned `ScratchFolder` goes) with `files` copied into its `photos/`.
    static func setUp(_ name: String, files: [(URL, String)]) throws -> (scratch: ScratchFolder, folder: URL, database: URL) {
        let scratch = try ScratchFolder(name)
        let folder = scratch.url.appending(path: "photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (source, target) in files { try FileManager.default.copyItem(at: source, to: folder.appending(path: target)) }
        return (scratch, folder, scratch.url.appending(path: "index.sqlite"))
    }

    static func run(_ folder: URL, _ database: URL, recognizer: OnDemandRecognizer) async throws -> LibraryIndexer.Report {
        let indexer = try LibraryIndexer(location: .sqlite(database), opener: IndexOpener())
        let classifier = ImageClassifier(model: try ImageClassifierModel(contentsOf: models.appending(path: "efficientnet-lite0")))
        let detector = FaceDetector(model: try FaceDetectorModel(contentsOf: models.appending(path: "blazeface")))
        return try await indexer.run(
            LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder.path)], jobs: 1), classifier: classifier, faceDetector: detector,
            faceRecognizer: recognizer, metadata: nil)
    }

    @Test func theRecognizerLoadsOnlyForAFaceAndAFailedLoadIsCaughtUpLater() async throws {
        let (scratch, folder, database) = try Self.setUp("recognition-indexing", files: [
            (LibraryIndexerTests.photos.appending(path: "cat-chelsea.jpg"), "cat.jpg"),
        ])
        let loads = Locked(0)
        let counting = OnDemandRecognizer {
            loads.withLock { $0 += 1 }
            return try FaceRecognizer(contentsOf: Self.models.appending(path: "face-recognition"))
        }
        // No face in the cat: the recognizer is never loaded.
        _ = try await Self.run(folder, database, recognizer: counting)
        #expect(!counting.wasLoaded && loads.withLock { $0 } == 0)

        // A face, with a recognizer that does not load: stored without a descriptor, said once.
        let astronaut = Self.repository.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png")
        try FileManager.default.copyItem(at: astronaut, to: folder.appending(path: "astronaut.png"))
        let broken = OnDemandRecognizer { throw ModelLoadingError.notFound(searched: ["/nowhere"]) }
        let failed = try await Self.run(folder, database, recognizer: broken)
        #expect(failed.new == 1 && failed.recognitionFailure?.contains("/nowhere") == true)
        let index = try SQLiteIndex(url: database)
        let stored = try #require(try index.faces(forPath: folder.appending(path: "astronaut.png").path))
        #expect(stored.count == 1 && stored[0].descriptor == nil)
        #expect(try index.statistics().describedFaceCount == 0)

        // The next run describes it from its stored box, loading the recognizer once.
        let caughtUp = try await Self.run(folder, database, recognizer: counting)
        #expect(caughtUp.new == 0 && caughtUp.facesDescribed == 1 && caughtUp.recognitionFailure == nil)
        #expect(loads.withLock { $0 } == 1)
        let described = try #require(try index.faces(forPath: folder.appending(path: "astronaut.png").path))
        #expect(described[0].descriptor?.count == 128)
        // It is the astronaut: within dlib's threshold of the descriptor index computes directly.
        let direct = OnDemandRecognizer { try FaceRecognizer(contentsOf: Self.models.appending(path: "face-recognition")) }
        let (otherScratch, other, otherDatabase) = try Self.setUp("recognition-indexing-direct", files: [(astronaut, "astronaut.png")])
        _ = try await Self.run(other, otherDatabase, recognizer: direct)
        let fresh = try #require(try SQLiteIndex(url: otherDatabase).faces(forPath: other.appending(path: "astronaut.png").path)?.first?.descriptor)
        let distance = zip(fresh, described[0].descriptor!).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
        #expect(distance < 0.01, "the stored box gives the same chip as the detection: \(distance)")
        #expect(try await Self.run(folder, database, recognizer: counting).facesDescribed == 0)
        withExtendedLifetime((scratch, otherScratch)) {}
    }
}
