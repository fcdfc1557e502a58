import ClassifyTestSupport
import Foundation
import PostgresNIO
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Faces added to images of a shared PostgreSQL index that were indexed without them
/// (`PostgresIndexWorker.imagesWithoutFaces`, `addFaces`), as `AddingFacesTests` checks in SQLite.
/// Skipped, saying why, where PostgreSQL is not installed.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresAddingFacesTests {
    static let labels = FaceIndexTests.labels
    static let model = ModelStamp(name: "test", version: "1")
    static let root = try! LibraryRoot(name: "lib", localPath: "/lib")

    static func entry(_ name: String, _ labels: [(String, Double)]) -> IndexEntry {
        .classified(ImageClassification(
            path: "/lib/\(name)", size: 100, modificationTime: Date(timeIntervalSince1970: 1_700_000_000), contentHash: "hash-\(name)",
            width: 10, height: 10, model: model, observations: labels.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }))
    }

    @Test func facesAreAddedUnderTheRunsRootsKeepingTheLabels() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await PostgresIndexRun.begin(descriptor, roots: [Self.root], labels: Self.labels, model: Self.model, settings: RunSettings())
        let worker = run.makeWorker()
        _ = try await worker.write([Self.entry("a.jpg", [("dog", 0.9)]), Self.entry("b.jpg", [("groom", 0.4)])], completing: [])
        let page = try await worker.imagesWithoutFaces(after: nil, limit: 10)
        #expect(page == [StoredImageFile(path: "lib:/a.jpg", contentHash: "hash-a.jpg"), StoredImageFile(path: "lib:/b.jpg", contentHash: "hash-b.jpg")])
        #expect(try await worker.imagesWithoutFaces(after: "lib:/a.jpg", limit: 10).map(\.path) == ["lib:/b.jpg"])
        let added = try await worker.addFaces([
            FacesFound(path: "lib:/a.jpg", contentHash: "hash-a.jpg", faces: []),
            FacesFound(path: "lib:/b.jpg", contentHash: "hash-b.jpg", faces: [FaceIndexTests.face(5, 0.7), FaceIndexTests.face(60, 0.9)]),
            FacesFound(path: "lib:/c.jpg", contentHash: "hash-c.jpg", faces: []),
        ])
        #expect(added == 2)
        #expect(try await worker.imagesWithoutFaces(after: nil, limit: 10) == [])
        #expect(try await worker.addFaces([FacesFound(path: "lib:/b.jpg", contentHash: "hash-b.jpg", faces: [])]) == 0)
        await worker.close()
        _ = try await run.finish()

        let index = try await PostgresIndex.open(descriptor)
        defer { Task { await index.close() } }
        #expect(try await index.faces(forPath: "lib:/b.jpg")?.map(\.x) == [60, 5])
        #expect(try await index.faces(forPath: "lib:/a.jpg") == [])
        #expect(try await index.search("face").hits.map(\.path) == ["lib:/b.jpg"])
        #expect(try await index.search("groom").hits.map(\.path) == ["lib:/b.jpg"])
        #expect(try await index.search("dog").hits.map(\.path) == ["lib:/a.jpg"])
        #expect(try await index.search("faces:0").hits.map(\.path) == ["lib:/a.jpg"])
        let person = try await index.search("person").hits
        #expect(person.first.map { abs($0.score - 0.9) < 0.01 } == true)
        try await PostgresIndexRunTests.checkIntegrity(descriptor)
    }

    @Test func aThoroughLookAddsItsFacesAfterTheStoredOnes() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await PostgresIndexRun.begin(descriptor, roots: [Self.root], labels: Self.labels, model: Self.model, settings: RunSettings())
        let worker = run.makeWorker()
        _ = try await worker.write([Self.entry("a.jpg", [("dog", 0.9)]), Self.entry("b.jpg", [("groom", 0.4)])], completing: [])
        #expect(try await worker.addFaces([
            FacesFound(path: "lib:/a.jpg", contentHash: "hash-a.jpg", faces: []),
            FacesFound(path: "lib:/b.jpg", contentHash: "hash-b.jpg", faces: [FaceIndexTests.face(5, 0.7)]),
        ]) == 2)
        let page = try await worker.imagesNotLookedAtThoroughly(after: nil, limit: 10)
        #expect(page.map(\.path) == ["lib:/a.jpg", "lib:/b.jpg"] && page[1].faces.map(\.x) == [5])
        #expect(try await worker.imagesNotLookedAtThoroughly(after: "lib:/a.jpg", limit: 10).map(\.path) == ["lib:/b.jpg"])
        // Following faces other than the stored ones: refused.
        #expect(try await worker.addFaces([
            FacesFound(path: "lib:/b.jpg", contentHash: "hash-b.jpg", faces: [FaceIndexTests.face(90, 0.99)], thorough: true, following: [])
        ]) == 0)
        #expect(try await worker.addFaces([
            FacesFound(path: "lib:/a.jpg", contentHash: "hash-a.jpg", faces: [], thorough: true, following: []),
            FacesFound(
                path: "lib:/b.jpg", contentHash: "hash-b.jpg", faces: [FaceIndexTests.face(90, 0.96), FaceIndexTests.face(200, 0.99)],
                thorough: true, following: page[1].faces),
        ]) == 2)
        #expect(try await worker.imagesNotLookedAtThoroughly(after: nil, limit: 10) == [])
        #expect(try await worker.addFaces([
            FacesFound(path: "lib:/a.jpg", contentHash: "hash-a.jpg", faces: [FaceIndexTests.face(9, 0.99)], thorough: true, following: [])
        ]) == 0)
        await worker.close()
        _ = try await run.finish()

        let index = try await PostgresIndex.open(descriptor)
        defer { Task { await index.close() } }
        #expect(try await index.faces(forPath: "lib:/b.jpg")?.map(\.x) == [5, 200, 90])
        #expect(try await index.faces(forPath: "lib:/a.jpg") == [])
        #expect(try await index.search("faces:3").hits.map(\.path) == ["lib:/b.jpg"])
        #expect(try await index.search("face").hits.first.map { abs($0.score - 0.99) < 0.01 } == true)
        try await PostgresIndexRunTests.checkIntegrity(descriptor)
    }
}

