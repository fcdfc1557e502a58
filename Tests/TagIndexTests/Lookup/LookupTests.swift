import Foundation
import Testing

@testable import TagIndex

/// The read APIs a gallery uses: lookups by id, completions, the catalog, the content version and
/// read-only opening. SQLite only: these lookups and read-only opening are `TagIndex`'s (the
/// gallery on PostgreSQL is not built yet).
@Suite struct LookupTests {
    @Test func idsPathsAndLabelsOfManyImagesInOneRead() throws {
        let fixture = try FixtureIndex()
        let hits = try fixture.index.search("dog").hits
        let golden = try #require(hits.first { $0.path == "/lib/a/golden1.jpg" })
        #expect(try fixture.index.imagePath(forID: golden.imageID) == "/lib/a/golden1.jpg")
        #expect(try fixture.index.imageID(forPath: "/lib/a/golden1.jpg") == golden.imageID)
        #expect(try fixture.index.imagePath(forID: 999_999) == nil)
        let labels = try fixture.index.labels(forImageIDs: hits.map(\.imageID))
        #expect(labels.count == hits.count)
        #expect(labels[golden.imageID] == (try fixture.index.labels(forPath: "/lib/a/golden1.jpg")))
        #expect(labels[golden.imageID]?.first { $0.identifier == "golden_retriever" }?.isLeaf == true)
        #expect(labels[golden.imageID]?.first { $0.identifier == "dog" }?.isLeaf == false)
        #expect(try fixture.index.labels(forImageIDs: []).isEmpty)
    }

    @Test func completionsPutPresentLabelsAndWholeNameMatchesFirst() throws {
        let fixture = try FixtureIndex()
        let retrievers = try fixture.index.labelCompletions(forPrefix: "retr").map(\.identifier)
        // Only later words match; golden (1 image), labrador (1), flat-coated (1): by count, then length.
        #expect(Set(retrievers) == ["golden_retriever", "labrador_retriever", "flat_coated_retriever"])
        let dogs = try fixture.index.labelCompletions(forPrefix: "pu")
        #expect(dogs.first?.identifier == "dog" && dogs.first?.matchedName == "puppy")
        #expect(dogs.first?.imageCount == 4)
        #expect(try fixture.index.labelCompletions(forPrefix: "  ").isEmpty)
        #expect(try fixture.index.labelCompletions(forPrefix: "zzz").isEmpty)
        let one = try fixture.index.labelCompletions(forPrefix: "o", limit: 1)
        #expect(one.map(\.identifier) == ["outdoor"])
    }

    @Test func completionsOfferVocabularyWordsThatStandForLabels() throws {
        let directory = try TemporaryDirectory()
        let index = try TagIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: [
            VocabularyWord(word: "seashore", labels: ["beach"], reason: "a beach is a seashore"),
            VocabularyWord(word: "selfie", unsupported: "The classifier does not see who took a photo.", reason: "no such class"),
        ])
        let completions = try index.labelCompletions(forPrefix: "se")
        #expect(completions.contains { $0.identifier == "seashore" && $0.isVocabularyWord })
        #expect(!completions.contains { $0.identifier == "selfie" })
        #expect(completions.contains { $0.identifier == "beach" && $0.matchedName == "seaside" && !$0.isVocabularyWord })
    }

    @Test func theCatalogHasParentsChildrenAndCounts() throws {
        let fixture = try FixtureIndex()
        let catalog = Dictionary(uniqueKeysWithValues: try fixture.index.labelCatalog().map { ($0.identifier, $0) })
        #expect(catalog.count == FixtureIndex.labels.count)
        let dog = try #require(catalog["dog"])
        #expect(dog.parents == ["animal"])
        #expect(dog.children == ["flat_coated_retriever", "golden_retriever", "labrador_retriever", "poodle"])
        #expect(dog.classCount == 4 && !dog.isLeaf)
        #expect(dog.imageCount == 4)
        #expect(dog.synonyms == ["puppy"])
        #expect(catalog["poodle"]?.isLeaf == true && catalog["poodle"]?.classCount == 1)
    }

    @Test func theContentVersionChangesWithTheImages() throws {
        let fixture = try FixtureIndex()
        let before = try fixture.index.contentVersion()
        #expect(try fixture.index.contentVersion() == before)
        _ = try fixture.index.remove(paths: ["/lib/c/beach1.jpg"])
        let afterRemoval = try fixture.index.contentVersion()
        #expect(afterRemoval != before)
        try fixture.index.write(batch: [.classified(ImageClassification(
            path: "/lib/c/new.jpg", size: 1, modificationTime: Date(), contentHash: "01", width: 1, height: 1,
            model: FixtureIndex.model, observations: [LabelConfidence(identifier: "beach", confidence: 0.9)]))])
        #expect(try fixture.index.contentVersion() != afterRemoval)
    }

    @Test func aReadOnlyIndexReadsWhatAWriterCommitsAndNeverWrites() throws {
        let fixture = try FixtureIndex()
        let reader = try TagIndex(readingFrom: fixture.directory.databaseURL)
        #expect(try reader.search("beach").totalCount == 2)
        try fixture.index.write(batch: [.classified(ImageClassification(
            path: "/lib/c/beach2.jpg", size: 1, modificationTime: Date(), contentHash: "02", width: 1, height: 1,
            model: FixtureIndex.model, observations: [LabelConfidence(identifier: "beach", confidence: 0.9)]))])
        #expect(try reader.search("beach").totalCount == 3)
        #expect(throws: (any Error).self) { try reader.remove(paths: ["/lib/c/beach2.jpg"]) }
        #expect(try fixture.index.search("beach").totalCount == 3)
        let missing = fixture.directory.databaseURL.deletingLastPathComponent().appending(path: "none.sqlite")
        #expect(throws: TagIndexError.self) { try TagIndex(readingFrom: missing) }
        #expect(!FileManager.default.fileExists(atPath: missing.path), "a read-only open creates nothing")
    }
}
