import Foundation
import Testing
@testable import TagIndex

/// "Did you mean": Damerau (adjacent swap = one edit) distance, a tight bound for short words,
/// names present in the index first. The suggestions of a search run on both backends
/// (``BackendIndex``).
@Suite struct SuggestionTests {
    private func distance(_ a: String, _ b: String, bound: Int = 10) -> Int {
        Suggestions.editDistance(Array(a), Array(b), bound: bound)
    }

    @Test func aSwapOfAdjacentLettersIsOneEdit() {
        #expect(distance("dgo", "dog") == 1)
        #expect(distance("poodel", "poodle") == 1)
        #expect(distance("teh", "the") == 1)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("ca", "abc") == 3)            // optimal string alignment: no edit of a swapped pair
        #expect(distance("", "dog") == 3)
        #expect(distance("dog", "") == 3)
        #expect(distance("dog", "dog") == 0)
        #expect(distance("abcdef", "ghijkl", bound: 2) == 3)   // gives up past the bound
    }

    @Test func shortWordsAcceptOneEditLongerOnesMore() {
        #expect(Suggestions.allowedEdits(forLength: 3) == 1)
        #expect(Suggestions.allowedEdits(forLength: 5) == 1)
        #expect(Suggestions.allowedEdits(forLength: 6) == 2)
        #expect(Suggestions.allowedEdits(forLength: 11) == 3)
    }

    /// Labels `ski`, `fly`, `hay`, `map`, `top`, `tip`, `mop`; `map` on three images, `top` on one.
    private func index(_ backend: Backend) async throws -> BackendIndex {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        let model = ModelStamp(name: "m", version: "1")
        try index.replaceTaxonomy(
            ["ski", "fly", "hay", "map", "top", "tip", "mop", "sunscreen"].map { LabelDefinition(identifier: $0, displayName: $0) },
            model: model,
            vocabulary: [VocabularyWord(word: "sunset", unsupported: "The classifier cannot see sunsets.", reason: "")])
        let images: [(String, String)] = [("a", "map"), ("b", "map"), ("c", "map"), ("d", "top")]
        try index.write(batch: images.map { name, label in
            .classified(ImageClassification(
                path: "/p/\(name).jpg", size: 1, modificationTime: Date(timeIntervalSince1970: 0), contentHash: name,
                width: 1, height: 1, model: model, observations: [LabelConfidence(identifier: label, confidence: 0.9)]))
        })
        return try await BackendIndex.make(backend, copying: index, in: directory)
    }

    private func suggestions(_ term: String, in index: BackendIndex) async -> [String]? {
        do {
            _ = try await index.search(term)
            return nil
        } catch TagIndexError.unknownLabel(_, _, let suggestions) {
            return suggestions
        } catch {
            return nil
        }
    }

    @Test(arguments: Backend.allCases) func neverTwoEditsFromAShortWord(backend: Backend) async throws {
        let index = try await index(backend)
        // `sky` is one edit from `ski` and two from `fly` and `hay`: only `ski` is offered.
        #expect(await suggestions("sky", in: index) == ["ski"])
        #expect(await suggestions("xyz", in: index) == [])
        #expect(TagIndexError.unknownLabel(term: "xyz", offset: 0, suggestions: []).description == "unknown label 'xyz' at offset 0")
    }

    @Test(arguments: Backend.allCases) func namesInTheIndexComeFirstMostImagesFirst(backend: Backend) async throws {
        let index = try await index(backend)
        // `tap` is one edit from map (3 images), top (1) and tip (none), two from mop.
        #expect(await suggestions("tap", in: index) == ["map", "top", "tip"])
        // Swaps: `tpo` and `otp` are one edit from top, two from everything else.
        #expect(await suggestions("tpo", in: index) == ["top"])
        #expect(await suggestions("otp", in: index) == ["top"])
    }

    @Test(arguments: Backend.allCases) func vocabularyWordsAreSuggestedToo(backend: Backend) async throws {
        let index = try await index(backend)
        #expect(await suggestions("sunest", in: index) == ["sunset"])
        #expect(await suggestions("sunsets", in: index) == nil)    // a plural of the word: its sentence, not a suggestion
        await #expect(throws: TagIndexError.unsupportedWord(term: "sunsets", offset: 0, explanation: "The classifier cannot see sunsets.")) {
            try await index.search("sunsets")
        }
    }
}
