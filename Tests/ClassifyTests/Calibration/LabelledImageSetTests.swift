import Foundation
import Testing
@testable import Classify

struct LabelledImageSetTests {
    @Test func truthComesFromFolderOrFileName() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["n02099601_1.jpg", "golden_retriever/a.png", "dog/b.jpg", "tabby_12.jpeg", "00042_n02123045_tabby.jpg", "holiday.jpg", "notes.txt"]
        for file in files {
            let url = root.appending(path: file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([0xFF, 0xD8]).write(to: url)
        }
        let set = try LabelledImageSet(root: root, taxonomy: TaxonomyTests.taxonomy)
        let truth = Dictionary(uniqueKeysWithValues: set.images.map { ($0.url.lastPathComponent, TaxonomyTests.taxonomy.labels[$0.labelIndex].identifier) })
        #expect(truth == ["n02099601_1.jpg": "golden_retriever", "a.png": "golden_retriever", "b.jpg": "dog",
                          "tabby_12.jpeg": "tabby", "00042_n02123045_tabby.jpg": "tabby"])
        #expect(set.unlabelled.map(\.lastPathComponent) == ["holiday.jpg"])
    }
}
