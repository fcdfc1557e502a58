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

    @Test func aThoroughLookAddsItsFacesAfterTheStoredOnesOnce() throws {
        let directory = try TemporaryDirectory()
        let index = try Self.makeIndex(directory)
        try index.addFaces([FacesFound(path: "/f/a.jpg", contentHash: Self.hash("a.jpg"), faces: [])])
        // Pages of images the fast detector alone looked at, with their stored faces.
        let page = try index.imagesNotLookedAtThoroughly(limit: 10)
        #expect(page.map(\.path) == ["/f/a.jpg", "/f/c.jpg"])
        #expect(page[1].faces.map(\.x) == [1] && page[1].width == 640)
        #expect(try index.imagesNotLookedAtThoroughly(after: "/f/a.jpg", limit: 10).map(\.path) == ["/f/c.jpg"])

        let stored = page[1].faces
        // Faces that follow other faces than the stored ones, or no faces at all, are refused.
        #expect(try index.addFaces([
            FacesFound(path: "/f/c.jpg", contentHash: Self.hash("c.jpg"), faces: [FaceIndexTests.face(90, 0.99)], thorough: true, following: []),
            FacesFound(path: "/f/b.jpg", contentHash: Self.hash("b.jpg"), faces: [FaceIndexTests.face(90, 0.99)], thorough: true, following: []),
        ]) == 0)
        let added = try index.addFaces([
            FacesFound(path: "/f/a.jpg", contentHash: Self.hash("a.jpg"), faces: [FaceIndexTests.face(7, 0.97)], thorough: true, following: []),
            FacesFound(
                path: "/f/c.jpg", contentHash: Self.hash("c.jpg"), faces: [FaceIndexTests.face(90, 0.96), FaceIndexTests.face(200, 0.99)],
                thorough: true, following: stored),
        ])
        #expect(added == 2)
        // The stored face keeps number 0 though the added ones are more confident.
        #expect(try index.faces(forPath: "/f/c.jpg")?.map(\.x) == [1, 200, 90])
        #expect(try index.faces(forPath: "/f/a.jpg")?.map(\.x) == [7])
        #expect(try index.search("faces:3").hits.map(\.path) == ["/f/c.jpg"])
        #expect(try index.search("face").hits.map(\.path).sorted() == ["/f/a.jpg", "/f/c.jpg"])
        let faceScores = try index.search("face").hits.map(\.score)
        #expect(faceScores.allSatisfy { $0 > 0.96 })
        #expect(try index.imagesNotLookedAtThoroughly(limit: 10) == [])
        // A second thorough look adds nothing.
        #expect(try index.addFaces([
            FacesFound(
                path: "/f/c.jpg", contentHash: Self.hash("c.jpg"), faces: [FaceIndexTests.face(300, 0.99)], thorough: true,
                following: try index.faces(forPath: "/f/c.jpg") ?? [])
        ]) == 0)
        #expect(try index.faces(forPath: "/f/c.jpg")?.count == 3)
    }

    @Test func descriptorsGrowWithTheAddedFacesOrAreDescribedAgain() {
        func described(_ x: Double, _ value: Float) -> IndexedFace {
            IndexedFace(x: x, y: 0, width: 40, height: 40, confidence: 0.9, descriptor: [Float](repeating: value, count: IndexedFace.descriptorLength))
        }
        let stored = [described(1, 0.5)]
        let row = FaceRow(count: 1, faces: IndexedFace.encode(stored), descriptors: IndexedFace.encodeDescriptors(stored), thorough: false)
        // Described added faces: their descriptors follow the stored ones.
        let grown = FacesFound(path: "p", contentHash: "h", faces: [described(90, 0.25)], thorough: true, following: stored).row(replacing: row)
        #expect(grown?.count == 2 && grown?.thorough == true)
        #expect(grown.flatMap { IndexedFace.decode($0.faces) }?.map(\.x) == [1, 90])
        #expect(grown?.descriptors.map { IndexedFace.decodeDescriptors($0).map { $0?.first } } == [0.5, 0.25])
        // Undescribed added faces: every face is described again by the next run (NULL).
        let undescribed = FacesFound(path: "p", contentHash: "h", faces: [FaceIndexTests.face(90, 0.9)], thorough: true, following: stored)
        #expect(undescribed.row(replacing: row)?.descriptors == nil)
        // Nothing added: the descriptors stay; the image is marked as looked at.
        let nothing = FacesFound(path: "p", contentHash: "h", faces: [], thorough: true, following: stored).row(replacing: row)
        #expect(nothing?.descriptors == row.descriptors && nothing?.thorough == true && nothing?.faces == row.faces)
        #expect(FacesFound(path: "p", contentHash: "h", faces: [], thorough: true, following: stored).faceLabelConfidence == nil)
        // A row marked thorough, or an image without a row, takes no following faces.
        var looked = row
        looked.thorough = true
        #expect(FacesFound(path: "p", contentHash: "h", faces: [], thorough: true, following: stored).row(replacing: looked) == nil)
        #expect(FacesFound(path: "p", contentHash: "h", faces: [], thorough: true, following: stored).row(replacing: nil) == nil)
    }
}
