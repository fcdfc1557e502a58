import Foundation
import Testing

@testable import TagIndex

/// The read APIs a gallery uses: lookups by id, completions, the catalog, the content version and
/// read-only opening. Lookups, completions and the catalog run on both backends (through
/// `IndexBackend`); read-only opening is SQLite's.
@Suite struct LookupTests {
    @Test(arguments: Backend.allCases) func idsPathsAndLabelsOfManyImagesInOneRead(backend: Backend) async throws {
        let copy = try await BackendIndex.make(backend, copying: try FixtureIndex())
        let index = copy.reader
        let hits = try await index.search(Query(parsing: "dog")).hits
        let golden = try #require(hits.first { $0.path == "/lib/a/golden1.jpg" })
        #expect(try await index.imagePath(forID: golden.imageID) == "/lib/a/golden1.jpg")
        #expect(try copy.sqlite.imageID(forPath: "/lib/a/golden1.jpg") == golden.imageID)
        #expect(try await index.imagePath(forID: 999_999) == nil)
        let labels = try await index.labels(forImageIDs: hits.map(\.imageID))
        #expect(labels.count == hits.count)
        #expect(labels[golden.imageID] == (try await index.labels(forPath: "/lib/a/golden1.jpg")))
        #expect(labels[golden.imageID]?.first { $0.identifier == "golden_retriever" }?.isLeaf == true)
        #expect(labels[golden.imageID]?.first { $0.identifier == "dog" }?.isLeaf == false)
        #expect(try await index.labels(forImageIDs: []).isEmpty)
        #expect(try await index.dominantColors(forPath: "/lib/a/golden1.jpg") == (try copy.sqlite.dominantColors(forPath: "/lib/a/golden1.jpg")))
    }

    @Test(arguments: Backend.allCases) func completionsPutPresentLabelsAndWholeNameMatchesFirst(backend: Backend) async throws {
        let index = try await BackendIndex.make(backend, copying: try FixtureIndex()).reader
        let retrievers = try await index.labelCompletions(forPrefix: "retr", limit: 8).map(\.identifier)
        // Only later words match; golden (1 image), labrador (1), flat-coated (1): by count, then length.
        #expect(Set(retrievers) == ["golden_retriever", "labrador_retriever", "flat_coated_retriever"])
        let dogs = try await index.labelCompletions(forPrefix: "pu", limit: 8)
        #expect(dogs.first?.identifier == "dog" && dogs.first?.matchedName == "puppy")
        #expect(dogs.first?.imageCount == 4)
        #expect(try await index.labelCompletions(forPrefix: "  ", limit: 8).isEmpty)
        #expect(try await index.labelCompletions(forPrefix: "zzz", limit: 8).isEmpty)
        let one = try await index.labelCompletions(forPrefix: "o", limit: 1)
        #expect(one.map(\.identifier) == ["outdoor"])
    }

    @Test(arguments: Backend.allCases) func completionsOfferVocabularyWordsThatStandForLabels(backend: Backend) async throws {
        let directory = try TemporaryDirectory()
        let written = try SQLiteIndex(url: directory.databaseURL)
        try written.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: [
            VocabularyWord(word: "seashore", labels: ["beach"], reason: "a beach is a seashore"),
            VocabularyWord(word: "selfie", unsupported: "The classifier does not see who took a photo.", reason: "no such class"),
        ])
        let index = try await BackendIndex.make(backend, copying: written, in: directory).reader
        let completions = try await index.labelCompletions(forPrefix: "se", limit: 8)
        #expect(completions.contains { $0.identifier == "seashore" && $0.isVocabularyWord })
        #expect(!completions.contains { $0.identifier == "selfie" })
        #expect(completions.contains { $0.identifier == "beach" && $0.matchedName == "seaside" && !$0.isVocabularyWord })
    }

    @Test(arguments: Backend.allCases) func theCatalogHasParentsChildrenAndCounts(backend: Backend) async throws {
        let index = try await BackendIndex.make(backend, copying: try FixtureIndex()).reader
        let catalog = Dictionary(uniqueKeysWithValues: try await index.labelCatalog().map { ($0.identifier, $0) })
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
        let reader = try SQLiteIndex(readingFrom: fixture.directory.databaseURL)
        #expect(try reader.search("beach").totalCount == 2)
        try fixture.index.write(batch: [.classified(ImageClassification(
            path: "/lib/c/beach2.jpg", size: 1, modificationTime: Date(), contentHash: "02", width: 1, height: 1,
            model: FixtureIndex.model, observations: [LabelConfidence(identifier: "beach", confidence: 0.9)]))])
        #expect(try reader.search("beach").totalCount == 3)
        #expect(throws: (any Error).self) { try reader.remove(paths: ["/lib/c/beach2.jpg"]) }
        #expect(try fixture.index.search("beach").totalCount == 3)
        let missing = fixture.directory.databaseURL.deletingLastPathComponent().appending(path: "none.sqlite")
        #expect(throws: TagIndexError.self) { try SQLiteIndex(readingFrom: missing) }
        #expect(!FileManager.default.fileExists(atPath: missing.path), "a read-only open creates nothing")
    }
}
