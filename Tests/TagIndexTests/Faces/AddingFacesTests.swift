import Foundation
import Testing
@testable import TagIndex

/// Faces added to images indexed without them (`imagesWithoutFaces`, `addFaces`): the images are
/// not classified again, so their labels stay and the `face` label joins them; an image whose
/// content changed, that has faces already, or that failed is left alone; corrections still apply.
struct AddingFacesTests {
    static let model = FaceIndexTests.model
    static let labels = FaceIndexTests.labels

    static func makeIndex(_ directory: TemporaryDirectory) throws -> SQLiteIndex {
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(labels, model: model)
        try index.write(batch: [
            FaceIndexTests.entry("a.jpg", [("dog", 0.9)], faces: nil),
            FaceIndexTests.entry("b.jpg", [("groom", 0.4)], faces: nil),
            FaceIndexTests.entry("c.jpg", [("dog", 0.5)], faces: [FaceIndexTests.face(1, 0.8)]),
            .failed(ImageFailure(path: "/f/d.jpg", size: 1, modificationTime: Date(timeIntervalSince1970: 0), contentHash: "x", model: model, stage: "decode", reason: "bad")),
        ])
        return index
    }

    static func hash(_ name: String) -> String { ContentHash.hex(of: Array(name.utf8)) }

    @Test func listsClassifiedImagesWithoutFacesInPathOrderByPages() throws {
        let directory = try TemporaryDirectory()
        let index = try Self.makeIndex(directory)
        #expect(try index.imagesWithoutFaces(limit: 10) == [
            StoredImageFile(path: "/f/a.jpg", contentHash: Self.hash("a.jpg")),
            StoredImageFile(path: "/f/b.jpg", contentHash: Self.hash("b.jpg")),
        ])
        #expect(try index.imagesWithoutFaces(limit: 1).map(\.path) == ["/f/a.jpg"])
        #expect(try index.imagesWithoutFaces(after: "/f/a.jpg", limit: 1).map(\.path) == ["/f/b.jpg"])
        #expect(try index.imagesWithoutFaces(after: "/f/b.jpg", limit: 10) == [])
    }

    @Test func addedFacesKeepTheLabelsAndAddTheFaceLabel() throws {
        let directory = try TemporaryDirectory()
        let index = try Self.makeIndex(directory)
        let added = try index.addFaces([
            FacesFound(path: "/f/a.jpg", contentHash: Self.hash("a.jpg"), faces: []),
            FacesFound(path: "/f/b.jpg", contentHash: Self.hash("b.jpg"), faces: [FaceIndexTests.face(5, 0.7), FaceIndexTests.face(60, 0.9)]),
            // Changed content, faces already stored, a failure, a path not indexed: left alone.
            FacesFound(path: "/f/c.jpg", contentHash: Self.hash("c.jpg"), faces: []),
            FacesFound(path: "/f/d.jpg", contentHash: "x", faces: [FaceIndexTests.face(5, 0.7)]),
            FacesFound(path: "/f/e.jpg", contentHash: "y", faces: [FaceIndexTests.face(5, 0.7)]),
        ])
        #expect(added == 2)
        #expect(try index.imagesWithoutFaces(limit: 10) == [])
        #expect(try index.faces(forPath: "/f/a.jpg") == [])
        #expect(try index.faces(forPath: "/f/b.jpg")?.map(\.x) == [60, 5])
        #expect(try index.faces(forPath: "/f/c.jpg")?.count == 1)
        #expect(try index.faces(forPath: "/f/d.jpg") == nil)
        let faceHits = try index.search("face").hits
        #expect(faceHits.map { ($0.path as NSString).lastPathComponent } == ["b.jpg"])
        #expect(faceHits.first.map { abs($0.score - 0.9) < 0.01 } == true)
        #expect(try index.search("groom").hits.map(\.path) == ["/f/b.jpg"])
        #expect(try index.search("dog").hits.map(\.path).sorted() == ["/f/a.jpg", "/f/c.jpg"])
        #expect(try index.search("faces:2").hits.map(\.path) == ["/f/b.jpg"])
        #expect(try index.search("faces:0").hits.map(\.path) == ["/f/a.jpg"])
        // person's subtree confidence is now the face's 0.9, above the groom's 0.4.
        let person = try index.search("person").hits
        #expect(person.map(\.path) == ["/f/b.jpg"] && person.first.map { abs($0.score - 0.9) < 0.01 } == true)
        // A second look adds nothing.
        #expect(try index.addFaces([FacesFound(path: "/f/b.jpg", contentHash: Self.hash("b.jpg"), faces: [])]) == 0)
        #expect(try index.faces(forPath: "/f/b.jpg")?.count == 2)
    }

    @Test func aCorrectionStillAppliesToAnImageGivenFaces() throws {
        let directory = try TemporaryDirectory()
        let index = try Self.makeIndex(directory)
        _ = try index.removeLabel("groom", from: ["/f/b.jpg"])
        #expect(try index.search("groom").hits.isEmpty)
        try index.addFaces([FacesFound(path: "/f/b.jpg", contentHash: Self.hash("b.jpg"), faces: [FaceIndexTests.face(5, 0.8)])])
        #expect(try index.search("groom").hits.isEmpty)
        #expect(try index.search("face").hits.map(\.path) == ["/f/b.jpg"])
        // Undoing the correction brings back what the model said, with the face label beside it.
        _ = try index.addLabel("groom", to: ["/f/b.jpg"])
        #expect(try index.search("groom").hits.map(\.path) == ["/f/b.jpg"])
        #expect(try index.search("face").hits.map(\.path) == ["/f/b.jpg"])
    }
}
