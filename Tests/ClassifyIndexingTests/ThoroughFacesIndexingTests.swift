import ClassifyTestSupport
import Foundation
import TagIndex
import Testing
import Classify
@testable import ClassifyIndexing

/// `index --faces thorough`: MTCNN looks after BlazeFace and adds the faces BlazeFace missed, in
/// new photos and in photos indexed before with the fast look, whose stored faces keep their
/// numbers; a photo looked at thoroughly once is not looked at again.
struct ThoroughFacesIndexingTests {
    static let models = FaceRecognitionIndexingTests.models

    /// A 2400 x 1800 grey photo with the astronaut's 168 x 160 portrait in it: her face is about
    /// 3% of the short side, below what BlazeFace's whole view finds and within MTCNN's.
    static func smallFacePhoto(quality: Int = 92) throws -> [UInt8] {
        let astronaut = FaceRecognitionIndexingTests.repository.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png")
        let portrait = try ImageDecoder().decode(contentsOf: astronaut)
        let (width, height) = (2400, 1800)
        var pixels = [UInt8](repeating: 128, count: width * height * 3)
        for y in 0..<portrait.height {
            for x in 0..<portrait.width * 3 { pixels[((700 + y) * width + 1000) * 3 + x] = portrait.pixels[y * portrait.width * 3 + x] }
        }
        return try TestJPEG.encode(pixels, width: width, height: height, quality: quality)
    }

    static func run(_ folder: URL, _ database: URL, thorough: Bool) async throws -> LibraryIndexer.Report {
        let indexer = try LibraryIndexer(location: .sqlite(database), opener: IndexOpener())
        let classifier = ImageClassifier(model: try ImageClassifierModel(contentsOf: models.appending(path: "efficientnet-lite0")))
        let fast = FaceDetector(model: try FaceDetectorModel(contentsOf: models.appending(path: "blazeface")))
        let mtcnn = thorough ? FaceDetector(model: try FaceDetectorModel(contentsOf: models.appending(path: "mtcnn"))) : nil
        return try await indexer.run(
            LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder.path)], jobs: 1), classifier: classifier, faceDetector: fast,
            thoroughFaceDetector: mtcnn, metadata: nil)
    }

    @Test func theThoroughLookAddsTheSmallFaceAndKeepsTheStoredOnes() async throws {
        let astronaut = FaceRecognitionIndexingTests.repository.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png")
        let (scratch, folder, database) = try FaceRecognitionIndexingTests.setUp("thorough-faces", files: [(astronaut, "astronaut.png")])
        defer { _ = scratch }
        let small = folder.appending(path: "small-face.jpg")
        try Data(try Self.smallFacePhoto()).write(to: small)
        let portrait = folder.appending(path: "astronaut.png").path

        // The fast look finds the portrait's face and not the small one.
        let fast = try await Self.run(folder, database, thorough: false)
        #expect(fast.new == 2 && fast.facesLookedAtThoroughly == 0)
        let index = try SQLiteIndex(url: database)
        let before = try #require(try index.faces(forPath: portrait))
        #expect(before.count == 1)
        #expect(try index.faces(forPath: small.path) == [])

        // The thorough run looks at both photos without classifying them again: the small face is
        // found (about 53 px of 1800), the portrait's face is not found twice; the name another
        // tool gave the small face in the photo's sidecar is read for it.
        let sidecar = TestXMP.faceRegions(width: 2400, height: 1800, [TestXMP.Region(name: "Sally Ride", x: 1048, y: 730, width: 46, height: 56)])
        try Data(sidecar.utf8).write(to: folder.appending(path: "small-face.xmp"))
        let thorough = try await Self.run(folder, database, thorough: true)
        #expect(thorough.new == 0 && thorough.updated == 0 && thorough.facesLookedAtThoroughly == 2)
        #expect(thorough.importedFaceNames.map { "\($0.faceNumber) \($0.name)" } == ["0 Sally Ride"])
        let after = try #require(try index.faces(forPath: portrait))
        #expect(after.count == 1 && after[0].x == before[0].x && after[0].confidence == before[0].confidence)
        let found = try #require(try index.faces(forPath: small.path))
        #expect(found.count == 1)
        if let face = found.first {
            #expect(face.x > 1000 && face.x < 1170 && face.y > 700 && face.y < 860 && face.height > 30 && face.height < 100)
        }
        #expect(try index.search("faces:1").hits.count == 2)

        // Looked at once is enough, copies included; a new photo gets both looks as it is classified.
        #expect(try await Self.run(folder, database, thorough: true).facesLookedAtThoroughly == 0)
        try FileManager.default.copyItem(at: small, to: folder.appending(path: "copy.jpg"))
        try Data(try Self.smallFacePhoto(quality: 90)).write(to: folder.appending(path: "new.jpg"))
        let added = try await Self.run(folder, database, thorough: true)
        #expect(added.new == 1 && added.summary.copied == 1 && added.facesLookedAtThoroughly == 0)
        #expect(try index.faces(forPath: folder.appending(path: "copy.jpg").path)?.count == 1)
        #expect(try index.faces(forPath: folder.appending(path: "new.jpg").path)?.count == 1)
        #expect(try index.imagesNotLookedAtThoroughly(limit: 10) == [])
    }
}
