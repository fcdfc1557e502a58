import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Face descriptors stored beside the boxes (`image_faces.descriptors`, v8) on both backends:
/// written with the faces, read back in the faces' order within fp16's precision, and added later (`imagesWithUndescribedFaces`, `addDescriptors`) only while the
/// image still has the content and the faces they were computed for.
struct FaceDescriptorStorageTests {
    static let model = FaceIndexTests.model
    static let labels = FaceIndexTests.labels

    /// A descriptor whose values are seeded by `seed` (in -0.25...0.25, like dlib's).
    static func descriptor(_ seed: Int) -> [Float] {
        (0..<128).map { Float(sin(Double($0 * 7 + seed * 131))) / 4 }
    }

    static func face(_ x: Double, _ confidence: Double, _ seed: Int?) -> IndexedFace {
        IndexedFace(x: x, y: 10, width: 40, height: 48, confidence: confidence, descriptor: seed.map(descriptor))
    }

    static func close(_ a: [Float]?, _ b: [Float]?) -> Bool {
        guard let a, let b, a.count == b.count else { return a == nil && b == nil }
        return zip(a, b).allSatisfy { abs($0 - $1) <= 1e-3 }
    }

    @Test func descriptorsRoundTripInTheFacesOrder() throws {
        let faces = [Self.face(5, 0.7, 1), Self.face(60, 0.9, 2), Self.face(90, 0.8, nil)]
        let blob = try #require(IndexedFace.encodeDescriptors(faces))
        #expect(blob.count == 3 * 128 * 2)
        let stored = IndexedFace.decode(IndexedFace.encode(faces))!
        let read = IndexedFace.attaching(blob, to: stored)
        // Highest confidence first, as the boxes; the face without a descriptor reads as none.
        #expect(read.map(\.x) == [60, 90, 5])
        #expect(Self.close(read[0].descriptor, Self.descriptor(2)) && read[1].descriptor == nil && Self.close(read[2].descriptor, Self.descriptor(1)))
        // Recognition ran but cut no chip: stored as zeros (not described again), read as none.
        let empty = [IndexedFace(x: 1, y: 1, width: 9, height: 9, confidence: 0.9, descriptor: [])]
        #expect(IndexedFace.encodeDescriptors(empty)?.allSatisfy { $0 == 0 } == true)
        #expect(IndexedFace.attaching(IndexedFace.encodeDescriptors(empty), to: empty).first?.descriptor == nil)
        // Recognition did not run, or no faces: no blob. A blob of the wrong size is ignored.
        #expect(IndexedFace.encodeDescriptors([Self.face(5, 0.7, nil)]) == nil)
        #expect(IndexedFace.encodeDescriptors([]) == nil)
        #expect(IndexedFace.attaching(Data(count: 10), to: stored).allSatisfy { $0.descriptor == nil })
    }

    static func entry(_ name: String, faces: [IndexedFace]?, root: String = "/f") -> IndexEntry {
        .classified(ImageClassification(
            path: "\(root)/\(name)", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
            contentHash: "hash-\(name)", width: 640, height: 480, model: model,
            observations: [LabelConfidence(identifier: "dog", confidence: 0.9)], faces: faces))
    }

    /// The writes and reads the two backends share, through their writer workers.
    static func exercise(
        worker: any IndexWriterWorker, prefix: String, faces: (String) async throws -> [IndexedFace]?
    ) async throws {
        _ = try await worker.write([
            Self.entry("described.jpg", faces: [Self.face(5, 0.7, 1), Self.face(60, 0.9, 2)], root: prefix),
            Self.entry("undescribed.jpg", faces: [Self.face(5, 0.7, nil), Self.face(60, 0.9, nil)], root: prefix),
            Self.entry("nobody.jpg", faces: [], root: prefix),
            Self.entry("unlooked.jpg", faces: nil, root: prefix),
        ], completing: [])
        // Only images with faces and no descriptors are listed, with their size and faces (the
        // listing also commits what the worker holds back).
        let page = try await worker.imagesWithUndescribedFaces(after: nil, limit: 10)
        let described = try #require(try await faces(prefix + "/described.jpg"))
        #expect(described.map(\.x) == [60, 5])
        #expect(Self.close(described[0].descriptor, Self.descriptor(2)) && Self.close(described[1].descriptor, Self.descriptor(1)))
        try #require(page.count == 1)
        #expect(page[0].path.hasSuffix("/undescribed.jpg") && page[0].contentHash == "hash-undescribed.jpg")
        #expect(page[0].width == 640 && page[0].height == 480 && page[0].faces.map(\.x) == [60, 5])
        #expect(try await worker.imagesWithUndescribedFaces(after: page[0].path, limit: 10).isEmpty)

        var withDescriptors = page[0].faces
        withDescriptors[0].descriptor = Self.descriptor(3)
        withDescriptors[1].descriptor = []
        var otherFaces = withDescriptors
        otherFaces[1].x = 6
        // Another content, or other faces than the stored ones: left alone.
        #expect(try await worker.addDescriptors([FacesFound(path: page[0].path, contentHash: "changed", faces: withDescriptors)]) == 0)
        #expect(try await worker.addDescriptors([FacesFound(path: page[0].path, contentHash: page[0].contentHash, faces: otherFaces)]) == 0)
        #expect(try await worker.addDescriptors([FacesFound(path: page[0].path, contentHash: page[0].contentHash, faces: withDescriptors)]) == 1)
        #expect(try await worker.addDescriptors([FacesFound(path: page[0].path, contentHash: page[0].contentHash, faces: withDescriptors)]) == 0)
        #expect(try await worker.imagesWithUndescribedFaces(after: nil, limit: 10).isEmpty)
        let added = try #require(try await faces(prefix + "/undescribed.jpg"))
        #expect(Self.close(added[0].descriptor, Self.descriptor(3)) && added[1].descriptor == nil)
    }

    @Test func sqliteStoresAndAddsDescriptors() async throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        let run = try await index.beginRun(
            roots: [try LibraryRoot(parsing: "/f")], labels: Self.labels, model: Self.model, vocabulary: [], settings: RunSettings())
        let worker = run.makeWorker()
        try await Self.exercise(worker: worker, prefix: "/f") { try index.faces(forPath: $0) }
        await worker.close()
        _ = try await run.finish()
    }

    @Test func postgresStoresAndAddsDescriptors() async throws {
        guard PostgresTestServer.isAvailable else { try Test.cancel(PostgresTestServer.skipReason) }
        let database = try await PostgresTestServer.freshDatabase()
        let root = try LibraryRoot(name: "lib", localPath: "/lib")
        let run = try await PostgresIndexRun.begin(database, roots: [root], labels: Self.labels, model: Self.model, settings: RunSettings())
        let worker = run.makeWorker()
        let index = try await PostgresIndex.open(database)
        defer { Task { await index.close() } }
        try await Self.exercise(worker: worker, prefix: "/lib") { try await index.faces(forPath: "lib:" + $0.dropFirst(4)) }
        await worker.close()
        _ = try await run.finish()
        try await PostgresIndexRunTests.checkIntegrity(database)
    }
}
