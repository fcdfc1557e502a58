import Foundation
import Testing
@testable import Classify

/// `vocabulary.json` is checked on load against the taxonomy, like the taxonomy itself.
struct SearchVocabularyTests {
    static let taxonomy = TaxonomyTests.taxonomy

    @Test func theShippedVocabularyLoadsWithTheModel() throws {
        let vocabulary = try #require(ShippedModel.model.labelSet.vocabulary)
        #expect(vocabulary.version == "1")
        #expect(vocabulary.words.count >= 250)
        #expect(vocabulary.words.map(\.word) == vocabulary.words.map(\.word).sorted())
        #expect(vocabulary.word("beach")?.labels == ["seashore", "sandbar", "breakwater"])
        #expect(vocabulary.word("Beach")?.word == "beach")
        #expect(vocabulary.word("people")?.labels == ["person"])
        #expect(vocabulary.word("people")?.facesAtLeast == 1)
        #expect(vocabulary.word("group")?.facesAtLeast == 3)
        let sunset = try #require(vocabulary.word("sunset"))
        #expect(sunset.labels.isEmpty)
        #expect(sunset.unsupported?.contains("--color FF8C00 (orange)") == true)
        #expect(!sunset.reason.isEmpty)
        // Every word has a reason; every mapped word's labels exist (checked on load, asserted here too).
        #expect(vocabulary.words.allSatisfy { !$0.reason.isEmpty })
        #expect(vocabulary.words.allSatisfy { word in word.labels.allSatisfy { Self.taxonomy.label($0) != nil } })
        #expect(vocabulary.words.allSatisfy { ($0.unsupported == nil) != $0.labels.isEmpty })
    }

    private func load(_ json: String) throws(ModelLoadingError) -> SearchVocabulary {
        let url = FileManager.default.temporaryDirectory.appending(path: "vocabulary-\(UUID().uuidString).json")
        try! Data(json.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try SearchVocabulary(contentsOf: url, taxonomy: Self.taxonomy)
    }

    private func file(_ words: String, version: Int = 1, format: String = "classify-vocabulary") -> String {
        """
        {"format": "\(format)", "formatVersion": \(version), "vocabularyVersion": "7", "taxonomy": "taxonomy.json",
         "words": [\(words)]}
        """
    }

    @Test func aWellFormedFileLoads() throws {
        let vocabulary = try load(file("""
            {"word": "pup", "labels": ["dog"], "reason": "young dogs"},
            {"word": "sky", "unsupported": "The classifier cannot see the sky.", "facesAtLeast": 2, "reason": "no class"}
            """))
        #expect(vocabulary.version == "7")
        #expect(vocabulary.words.map(\.word) == ["pup", "sky"])
        #expect(vocabulary.word("sky")?.facesAtLeast == 2)
    }

    @Test func everyProblemIsAnErrorThatNamesTheFileAndTheWord() {
        func problem(_ json: String) -> ModelLoadingError? {
            do {
                _ = try load(json)
                return nil
            } catch {
                return error
            }
        }
        // The message names the file (here the temporary one) and says what is wrong with which word.
        let message = problem(file(#"{"word": "shore", "labels": ["seashor"], "reason": ""}"#)).map { "\($0)" } ?? ""
        #expect(message.hasPrefix("vocabulary-") && message.hasSuffix(".json: malformed (word 'shore' names an unknown label 'seashor')"))
        func reason(_ json: String) -> String? {
            guard case .malformed(_, let reason)? = problem(json) else { return nil }
            return reason
        }
        #expect(reason(self.file(#"{"word": "shore", "labels": ["seashor"], "reason": ""}"#))
            == "word 'shore' names an unknown label 'seashor'")
        #expect(reason(self.file(#"{"word": "pup", "labels": ["dog"], "reason": ""}, {"word": "pup", "labels": ["dog"], "reason": ""}"#))
            == "word 'pup' is listed twice")
        #expect(reason(self.file(#"{"word": "pup", "reason": ""}"#))
            == "word 'pup' needs either labels or an unsupported sentence, not both or neither")
        #expect(reason(self.file(#"{"word": "pup", "labels": ["dog"], "unsupported": "x", "reason": ""}"#))
            == "word 'pup' needs either labels or an unsupported sentence, not both or neither")
        #expect(reason(self.file(#"{"word": "mountain", "labels": ["valley"], "reason": ""}"#))
            == "word 'mountain' is the name of mountain, which search answers first; list it among the word's labels to widen the name")
        #expect(reason(self.file(#"{"word": "dog", "unsupported": "No.", "reason": ""}"#))
            == "word 'dog' is the name of dog and cannot be marked as something the classifier cannot see")
        #expect(reason(self.file(#"{"word": "Big  Dog", "labels": ["dog"], "reason": ""}"#))
            == "word 'Big  Dog' must be lowercase words separated by single spaces")
        #expect(reason(self.file(#"{"word": "crowd", "labels": ["person"], "facesAtLeast": 0, "reason": ""}"#))
            == "word 'crowd' has facesAtLeast 0; it must be 1 or more")
        #expect(reason(self.file("", format: "classify-taxonomy")) == "format is 'classify-taxonomy'")
        #expect(reason("{not json") != nil)
        guard case .unsupportedFormat(_, 2, 1)? = problem(self.file("", version: 2)) else {
            Issue.record("a newer format version must be refused")
            return
        }
    }
}
