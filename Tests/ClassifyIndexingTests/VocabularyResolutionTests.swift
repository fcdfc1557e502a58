import Classify
import Foundation
import Testing
@testable import ClassifyIndexing
@testable import TagIndex

/// The shipped taxonomy and search vocabulary, installed as `index` installs them: what a few
/// dozen words people type resolve to (mapped, unsupported, plural, misspelt), and the messages.
@Suite struct VocabularyResolutionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Installing the taxonomy takes seconds in a debug build: once for the suite.
    static let index: SQLiteIndex = {
        do {
            let model = try ImageClassifierModel(contentsOf: repository.appending(path: "Models/efficientnet-lite0"))
            let index = try SQLiteIndex.inMemory()
            try IndexVocabulary(model: model).install(into: index)
            return index
        } catch {
            fatalError("cannot install the shipped vocabulary: \(error)")
        }
    }()

    @Test(arguments: [
        // word typed, name matched, labels searched
        ("beach", "beach", ["breakwater", "sandbar", "seashore"]),
        ("Beaches", "beach", ["breakwater", "sandbar", "seashore"]),
        ("lake", "lake", ["boathouse", "canoe", "lakeside"]),
        ("mountains", "mountain", ["cliff", "mountain", "promontory", "valley"]),
        ("snow", "snow", ["ski", "sled", "snowmobile", "snowplow"]),
        ("babies", "baby", ["baby_bed", "bib", "diaper", "nipple"]),
        ("weddings", "wedding", ["gown", "groom"]),
        ("birthday", "birthday", ["balloon", "candle"]),
        ("people", "people", ["person"]),
        ("portraits", "portrait", ["person"]),
        ("food", "food", ["course", "dish_nutriment", "food", "foodstuff"]),
        ("puppies", "puppy", ["dog"]),
        ("horses", "horse", ["horse_cart", "sorrel"]),
        ("glasses", "glasses", ["sunglass", "sunglasses"]),
        ("living room", "living room", ["entertainment_center", "home_theater", "rocking_chair", "studio_couch", "table_lamp", "television"]),
        ("screenshot", "screenshot", ["web_site"]),
        // Label names answer first, plurals too, and vocabulary words never hide them.
        ("dogs", "dog", ["dog"]),
        ("wolves", "wolf", ["wolf"]),
        ("pizzas", "pizza", ["pizza"]),
        ("hot dogs", "hot dog", ["hotdog"]),
        ("golden retrievers", "golden retriever", ["golden_retriever"]),
        ("jack-o-lantern", "jack o lantern", ["jack_o_lantern"]),
    ] as [(String, String, [String])])
    func mappedWordsAndNames(term: String, name: String, labels: [String]) throws {
        let meaning = try Self.index.meaning(of: term)
        #expect(meaning.matchedName == name)
        #expect(meaning.labels == labels)
        #expect(!meaning.isUnsupported)
        #expect(!meaning.isFreeText)
    }

    @Test func theFacesNoteTravelsWithThePeopleWords() throws {
        #expect(try Self.index.meaning(of: "people").word?.facesAtLeast == 1)
        #expect(try Self.index.meaning(of: "person").word?.facesAtLeast == 1)
        #expect(try Self.index.meaning(of: "person").namedLabels == ["person"])
        #expect(try Self.index.meaning(of: "groups").word?.facesAtLeast == 3)
        #expect(try Self.index.meaning(of: "dog").word == nil)
    }

    @Test(arguments: [
        ("sky", "--color 87CEEB (sky blue)"),
        ("sunsets", "--color FF8C00 (orange)"),
        ("night", "--color 10131C (near black)"),
        ("text", "try menu, street sign, book, crossword or screenshot"),
        ("waterfall", "Try river, lake or valley"),
        ("forest", "try fungus, squirrel or owl"),
        ("children", "faces:1+ once faces are indexed"),
        ("selfies", "Once faces are indexed, search faces:1"),
    ])
    func unsupportedWordsSayWhatToTry(term: String, advice: String) throws {
        let meaning = try Self.index.meaning(of: term)
        #expect(meaning.isUnsupported)
        #expect(meaning.word?.unsupportedExplanation?.contains(advice) == true)
        #expect(meaning.labels.isEmpty)
        do {
            _ = try Self.index.search(term)
            Issue.record("searching '\(term)' must explain why it cannot")
        } catch let error as TagIndexError {
            guard case .unsupportedWord(term, 0, let explanation) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(explanation.contains(advice))
        }
    }

    @Test func theMessagesPeopleSee() throws {
        func message(_ query: String) -> String {
            do {
                _ = try Self.index.search(query)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("sky") == "cannot search for 'sky' (at offset 0): The classifier cannot see the sky: it recognizes "
            + "objects and scenes, not light or time of day. Search by color instead: --color 87CEEB (sky blue), alone or with a query.")
        #expect(message("beach OR sunset") == "cannot search for 'sunset' (at offset 9): The classifier cannot see sunsets: "
            + "it recognizes objects and scenes, not light or time of day. Search by color instead: --color FF8C00 (orange), "
            + "alone or with a query.")
        #expect(message("dgo") == "unknown label 'dgo' at offset 0; did you mean 'dog'?")
        #expect(message("xqzvw") == "unknown label 'xqzvw' at offset 0")
        // `red fox` and `night snake` are names: the unsupported words inside them do not get in the way.
        #expect(message("red fox") == "no error")
        #expect(message("night snake") == "no error")
        #expect(message("white shark") == "no error")
        // A color word alone ranks by the color; the vocabulary still says why it is no label.
        #expect(message("red") == "no error")
        #expect(try Self.index.meaning(of: "red").word?.unsupportedExplanation?.contains("--color D32F2F (red)") == true)
    }

    @Test(arguments: [
        ("dgo", "dog"),
        ("beahc", "beach"),
        ("moutain", "mountain"),
        ("peopel", "people"),
        ("weding", "wedding"),
        ("skyy", "sky"),
        ("waterfal", "waterfall"),
        ("poodel", "poodle"),
        ("retreiver", "retriever"),
    ])
    func misspeltWordsSuggestTheWordMeant(term: String, suggestion: String) throws {
        do {
            _ = try Self.index.search(term)
            Issue.record("'\(term)' should be unknown")
        } catch TagIndexError.unknownLabel(_, _, let suggestions) {
            #expect(suggestions.first == suggestion, "\(term): \(suggestions)")
        }
    }
}
