import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// The search vocabulary over the fixture taxonomy: mapped words, a word that widens a name,
/// unsupported words, plurals, and adjacent words joined into names. Searches run on both backends
/// (``BackendIndex``); SQLite-only: `meaning(of:)` (not in `PostgresIndex` yet) and the taxonomy
/// writer's checks (`replaceTaxonomy` is SQLite's; PostgreSQL index runs install the taxonomy
/// through `PostgresIndexRun`).
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

    /// The fixture with a red setter and the vocabulary, in SQLite.
    static func written() throws -> FixtureIndex {
        let fixture = try FixtureIndex()
        try fixture.index.replaceTaxonomy(FixtureIndex.labels + [
            LabelDefinition(identifier: "red_setter", displayName: "Red Setter", parents: ["dog"]),
        ], model: FixtureIndex.model, vocabulary: Self.words)
        return fixture
    }

    /// The written fixture on `backend`.
    static func make(_ backend: Backend) async throws -> BackendIndex {
        try await BackendIndex.make(backend, copying: try written())
    }

    @Test(arguments: Backend.allCases) func aMappedWordScoresAsAnOROfItsLabels(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        let word = try await fixture.search("pet")
        let written = try await fixture.search("dog OR cat")
        #expect(word.hits.map(\.path) == written.hits.map(\.path))
        #expect(word.hits.map(\.score) == written.hits.map(\.score))
        #expect(Set(try await fixture.paths("pet")) == ["golden1.jpg", "poodle1.jpg", "lab1.png", "tabby1.jpg", "flat1.jpg"])
        // Combined with the rest of the language like any term.
        #expect(try await fixture.paths("pet -indoor") == ["golden1.jpg", "lab1.png"])
        #expect(try await fixture.paths("pet:0.85") == ["golden1.jpg", "poodle1.jpg"])
    }

    @Test(arguments: Backend.allCases) func aWordThatIsAlsoANameWidensIt(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        // The label indoor finds flat1, poodle1, tabby1; the word adds tabby's subtree (already in).
        #expect(Set(try await fixture.paths("indoor")) == ["flat1.jpg", "poodle1.jpg", "tabby1.jpg"])
    }

    /// SQLite only (`meaning(of:)`): what the words of the tests above mean.
    @Test func theMeaningOfAWordIsWhatSearchSearches() throws {
        let fixture = try Self.written()
        let meaning = try fixture.index.meaning(of: "indoor")
        #expect(meaning.namedLabels == ["indoor"])
        #expect(meaning.labels == ["indoor", "tabby"])
        #expect(meaning.word?.reason == "widens indoor: cats live indoors")
        let sky = try fixture.index.meaning(of: "sky")
        #expect(sky.isUnsupported)
        #expect(sky.labels.isEmpty)
        let pets = try fixture.index.meaning(of: "pets")
        #expect(pets.matchedName == "pet")
        #expect(pets.labels == ["cat", "dog"])
        #expect(!pets.isFreeText)
        let free = try fixture.index.meaning(of: "retrievers")
        #expect(free.isFreeText)
        #expect(free.matchedName == "retriever")
        #expect(free.labels == ["flat_coated_retriever", "golden_retriever", "labrador_retriever"])
        let people = try fixture.index.meaning(of: "people")
        #expect(people.word?.facesAtLeast == 1 && people.facesAtLeast == nil)
    }

    @Test(arguments: Backend.allCases) func unsupportedWordsExplainThemselves(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        await #expect(throws: TagIndexError.unsupportedWord(
            term: "sky", offset: 0, explanation: "The classifier cannot see the sky. Search by color: --color 87CEEB.")) {
            try await fixture.search("sky")
        }
        do {
            _ = try await fixture.search("dog OR skies")
            Issue.record("expected an unsupported word error")
        } catch let error as TagIndexError {
            #expect(error.description
                == "cannot search for 'skies' (at offset 7): The classifier cannot see the sky. Search by color: --color 87CEEB.")
        }
    }

    @Test(arguments: Backend.allCases) func pluralsAndPossessivesResolveToTheSameTerms(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        let dog = try await fixture.paths("dog")
        #expect(try await fixture.paths("dogs") == dog)
        #expect(try await fixture.paths("dog's") == dog)
        #expect(try await fixture.paths("pets") == fixture.paths("pet"))
        #expect(try await fixture.paths("puppies") == dog)          // a synonym
        #expect(try await fixture.paths("kitties") == ["tabby1.jpg"])
        #expect(try await fixture.paths("\"golden retrievers\"") == ["golden1.jpg"])
        #expect(try await fixture.paths("poodles") == ["poodle1.jpg"])
        // Free text also tries the singular: `retriever` is no name, but three names contain it.
        #expect(try await fixture.paths("retrievers") == fixture.paths("retriever"))
    }

    @Test(arguments: Backend.allCases) func adjacentWordsThatNameSomethingAreOneTerm(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        // `red` alone is a color (dogs ranked by red; the fixture stores no colors), but `red
        // setter` is a label's name.
        #expect(try await fixture.paths("red setter").isEmpty)
        #expect(try await fixture.search("red dog").hits.isEmpty)
        #expect(try await fixture.search("red dog") == fixture.search(color: IndexedColor(hex: "D32F2F")!, query: Query(parsing: "dog")))
        // Punctuation does not matter: `flat coated retriever` names "Flat-Coated Retriever".
        #expect(try await fixture.paths("flat coated retriever") == ["flat1.jpg"])
        #expect(try await fixture.paths("golden retrievers") == ["golden1.jpg"])
        #expect(try await fixture.paths("living room") == fixture.paths("indoor"))
        // A per-term confidence on the last word applies to the joined name.
        #expect(try await fixture.paths("golden retriever:0.95").isEmpty)
        #expect(try await fixture.paths("golden retriever:0.5") == ["golden1.jpg"])
        // Words that name nothing together stay separate terms.
        #expect(try await fixture.paths("dog outdoor") == ["golden1.jpg", "lab1.png"])
    }

    /// Without the face label (an index that never stored faces) the note is carried, not searched;
    /// `FaceSearchTests` covers the index with faces.
    @Test(arguments: Backend.allCases) func theFacesNoteIsCarriedButDoesNotSearchWithoutFaces(backend: Backend) async throws {
        let fixture = try await Self.make(backend)
        #expect(try await fixture.paths("people") == ["golden1.jpg"])
    }

    /// Replacing the vocabulary (SQLite's writer); the index reopened, and a copy, search the new one.
    @Test(arguments: Backend.allCases) func theVocabularyIsStoredWithTheTaxonomyAndReplacedWhole(backend: Backend) async throws {
        let fixture = try Self.written()
        #expect(try fixture.index.vocabulary() == Self.words.sorted { $0.word < $1.word })
        let reopened = try SQLiteIndex(url: fixture.directory.databaseURL)
        #expect(try reopened.paths("pets") == fixture.paths("pet"))
        // Same labels, another vocabulary: the new one replaces the old.
        try fixture.index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: [
            VocabularyWord(word: "pup", labels: ["dog"], reason: "young dogs"),
        ])
        #expect(try reopened.paths("pup") == fixture.paths("dog"))
        #expect(throws: TagIndexError.self) { try reopened.search("pet") }
        let copy = try await BackendIndex.make(backend, copying: fixture)
        #expect(try await copy.paths("pup") == copy.paths("dog"))
        await #expect(throws: TagIndexError.self) { try await copy.search("pet") }
        try fixture.index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model)
        #expect(try fixture.index.vocabulary().isEmpty)
    }

    /// SQLite only: the taxonomy writer leaves an unchanged vocabulary alone.
    @Test func installingTheSameVocabularyAgainWritesNothing() throws {
        let fixture = try Self.written()
        // Every index run installs the taxonomy and vocabulary; unchanged, they must not be rewritten
        // (the stored JSON and its fingerprint must not depend on dictionary order).
        let labels = FixtureIndex.labels + [LabelDefinition(identifier: "red_setter", displayName: "Red Setter", parents: ["dog"])]
        let generation = try fixture.index.database.read { db in try TaxonomySnapshot.generation(db) }
        for _ in 0..<20 {
            try fixture.index.replaceTaxonomy(labels, model: FixtureIndex.model, vocabulary: Self.words.shuffled())
        }
        #expect(try fixture.index.database.read { db in try TaxonomySnapshot.generation(db) } == generation)
    }

    /// SQLite only: the taxonomy writer refuses a vocabulary that breaks the rules.
    @Test func aVocabularyThatBreaksTheRulesIsRefused() throws {
        let fixture = try Self.written()
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

extension SQLiteIndex {
    fileprivate func paths(_ text: String) throws -> [String] {
        try search(text).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }
}
