import Foundation
import Testing
@testable import TagIndex

/// The search vocabulary over the fixture taxonomy: mapped words, a word that widens a name,
/// unsupported words, plurals, and adjacent words joined into names.
@Suite struct VocabularySearchTests {
    static let words: [VocabularyWord] = [
        VocabularyWord(word: "pet", labels: ["dog", "cat"], reason: "dogs and cats"),
        VocabularyWord(word: "indoor", labels: ["indoor", "tabby"], reason: "widens indoor: cats live indoors"),
        VocabularyWord(word: "people", labels: ["golden_retriever"], facesAtLeast: 1, reason: "a stand-in for person classes"),
        VocabularyWord(word: "living room", labels: ["indoor"], reason: "two words"),
        VocabularyWord(
            word: "sky", unsupported: "The classifier cannot see the sky. Search by color: --color 87CEEB.",
            reason: "no class is the sky"),
        VocabularyWord(
            word: "red", unsupported: "The classifier recognizes objects, not colors: --color D32F2F.", reason: "colors"),
    ]

    let fixture: FixtureIndex
    init() throws {
        fixture = try FixtureIndex()
        try fixture.index.replaceTaxonomy(FixtureIndex.labels + [
            LabelDefinition(identifier: "red_setter", displayName: "Red Setter", parents: ["dog"]),
        ], model: FixtureIndex.model, vocabulary: Self.words)
    }

    @Test func aMappedWordScoresAsAnOROfItsLabels() throws {
        let word = try fixture.index.search("pet")
        let written = try fixture.index.search("dog OR cat")
        #expect(word.hits.map(\.path) == written.hits.map(\.path))
        #expect(word.hits.map(\.score) == written.hits.map(\.score))
        #expect(Set(try fixture.paths("pet")) == ["golden1.jpg", "poodle1.jpg", "lab1.png", "tabby1.jpg", "flat1.jpg"])
        // Combined with the rest of the language like any term.
        #expect(try fixture.paths("pet -indoor") == ["golden1.jpg", "lab1.png"])
        #expect(try fixture.paths("pet:0.85") == ["golden1.jpg", "poodle1.jpg"])
    }

    @Test func aWordThatIsAlsoANameWidensIt() throws {
        // The label indoor finds flat1, poodle1, tabby1; the word adds tabby's subtree (already in).
        #expect(Set(try fixture.paths("indoor")) == ["flat1.jpg", "poodle1.jpg", "tabby1.jpg"])
        let meaning = try fixture.index.meaning(of: "indoor")
        #expect(meaning.namedLabels == ["indoor"])
        #expect(meaning.labels == ["indoor", "tabby"])
        #expect(meaning.word?.reason == "widens indoor: cats live indoors")
    }

    @Test func unsupportedWordsExplainThemselves() throws {
        #expect(throws: TagIndexError.unsupportedWord(
            term: "sky", offset: 0, explanation: "The classifier cannot see the sky. Search by color: --color 87CEEB.")) {
            try fixture.index.search("sky")
        }
        do {
            _ = try fixture.index.search("dog OR skies")
            Issue.record("expected an unsupported word error")
        } catch let error as TagIndexError {
            #expect(error.description
                == "cannot search for 'skies' (at offset 7): The classifier cannot see the sky. Search by color: --color 87CEEB.")
        }
        let meaning = try fixture.index.meaning(of: "sky")
        #expect(meaning.isUnsupported)
        #expect(meaning.labels.isEmpty)
    }

    @Test func pluralsAndPossessivesResolveToTheSameTerms() throws {
        #expect(try fixture.paths("dogs") == fixture.paths("dog"))
        #expect(try fixture.paths("dog's") == fixture.paths("dog"))
        #expect(try fixture.paths("pets") == fixture.paths("pet"))
        #expect(try fixture.paths("puppies") == fixture.paths("dog"))          // a synonym
        #expect(try fixture.paths("kitties") == ["tabby1.jpg"])
        #expect(try fixture.paths("\"golden retrievers\"") == ["golden1.jpg"])
        #expect(try fixture.paths("poodles") == ["poodle1.jpg"])
        // Free text also tries the singular: `retriever` is no name, but three names contain it.
        #expect(try fixture.paths("retrievers") == fixture.paths("retriever"))
        let meaning = try fixture.index.meaning(of: "pets")
        #expect(meaning.matchedName == "pet")
        #expect(meaning.labels == ["cat", "dog"])
        #expect(!meaning.isFreeText)
        let free = try fixture.index.meaning(of: "retrievers")
        #expect(free.isFreeText)
        #expect(free.matchedName == "retriever")
        #expect(free.labels == ["flat_coated_retriever", "golden_retriever", "labrador_retriever"])
    }

    @Test func adjacentWordsThatNameSomethingAreOneTerm() throws {
        // `red` alone is unsupported, but `red setter` is a label's name.
        #expect(try fixture.paths("red setter").isEmpty)
        #expect(throws: TagIndexError.self) { try fixture.index.search("red dog") }
        // Punctuation does not matter: `flat coated retriever` names "Flat-Coated Retriever".
        #expect(try fixture.paths("flat coated retriever") == ["flat1.jpg"])
        #expect(try fixture.paths("golden retrievers") == ["golden1.jpg"])
        #expect(try fixture.paths("living room") == fixture.paths("indoor"))
        // A per-term confidence on the last word applies to the joined name.
        #expect(try fixture.paths("golden retriever:0.95").isEmpty)
        #expect(try fixture.paths("golden retriever:0.5") == ["golden1.jpg"])
        // Words that name nothing together stay separate terms.
        #expect(try fixture.paths("dog outdoor") == ["golden1.jpg", "lab1.png"])
    }

    /// Without the face label (an index that never stored faces) the note is carried, not searched;
    /// `FaceSearchTests` covers the index with faces.
    @Test func theFacesNoteIsCarriedButDoesNotSearchWithoutFaces() throws {
        let meaning = try fixture.index.meaning(of: "people")
        #expect(meaning.word?.facesAtLeast == 1 && meaning.facesAtLeast == nil)
        #expect(try fixture.paths("people") == ["golden1.jpg"])
    }

    @Test func theVocabularyIsStoredWithTheTaxonomyAndReplacedWhole() throws {
        #expect(try fixture.index.vocabulary() == Self.words.sorted { $0.word < $1.word })
        let reopened = try TagIndex(url: fixture.directory.databaseURL)
        #expect(try reopened.paths("pets") == fixture.paths("pet"))
        // Same labels, another vocabulary: the new one replaces the old.
        try fixture.index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: [
            VocabularyWord(word: "pup", labels: ["dog"], reason: "young dogs"),
        ])
        #expect(try reopened.paths("pup") == fixture.paths("dog"))
        #expect(throws: TagIndexError.self) { try reopened.search("pet") }
        try fixture.index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model)
        #expect(try fixture.index.vocabulary().isEmpty)
    }

    @Test func installingTheSameVocabularyAgainWritesNothing() throws {
        // Every index run installs the taxonomy and vocabulary; unchanged, they must not be rewritten
        // (the stored JSON and its fingerprint must not depend on dictionary order).
        let labels = FixtureIndex.labels + [LabelDefinition(identifier: "red_setter", displayName: "Red Setter", parents: ["dog"])]
        let generation = try fixture.index.database.read { db in try TaxonomySnapshot.generation(db) }
        for _ in 0..<20 {
            try fixture.index.replaceTaxonomy(labels, model: FixtureIndex.model, vocabulary: Self.words.shuffled())
        }
        #expect(try fixture.index.database.read { db in try TaxonomySnapshot.generation(db) } == generation)
    }

    @Test func aVocabularyThatBreaksTheRulesIsRefused() throws {
        let labels = FixtureIndex.labels
        func refusal(_ word: VocabularyWord) -> String? {
            do {
                try fixture.index.replaceTaxonomy(labels, model: FixtureIndex.model, vocabulary: [word])
                return nil
            } catch let error as TagIndexError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        let prefix = "the search vocabulary cannot be installed: "
        #expect(refusal(VocabularyWord(word: "shore", labels: ["seashore"], reason: "")) == prefix
            + "word 'shore' names an unknown label 'seashore'")
        #expect(refusal(VocabularyWord(word: "puppy", labels: ["poodle"], reason: "")) == prefix
            + "word 'puppy' is the name of dog, which search answers first; list it among the word's labels to widen the name")
        #expect(refusal(VocabularyWord(word: "kitty", unsupported: "No.", reason: "")) == prefix
            + "word 'kitty' is the name of cat and cannot be marked as something the classifier cannot see")
        #expect(refusal(VocabularyWord(word: "Sky", unsupported: "No.", reason: "")) == prefix
            + "word 'Sky' must be lowercase words separated by single spaces")
        #expect(refusal(VocabularyWord(word: "sky", unsupported: "", reason: "")) == prefix
            + "unsupported word 'sky' needs a sentence saying what to try")
        #expect(refusal(VocabularyWord(word: "crowd", labels: ["dog"], facesAtLeast: 0, reason: "")) == prefix
            + "word 'crowd' has facesAtLeast 0; it must be 1 or more")
        #expect(refusal(VocabularyWord(word: "nothing", labels: [], reason: "")) == prefix + "word 'nothing' names no label")
        // A refused vocabulary changes nothing.
        #expect(try fixture.index.vocabulary() == Self.words.sorted { $0.word < $1.word })
    }
}

extension TagIndex {
    fileprivate func paths(_ text: String) throws -> [String] {
        try search(text).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }
}
