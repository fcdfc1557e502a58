import ClassifySupport
import Foundation

/// The everyday words people type into a photo search (`beach`, `people`, `birthday`), read from
/// the model directory's `vocabulary.json` and checked against the taxonomy on load: each word is
/// either mapped to the labels that are evidence for it, or marked as something the classifier
/// cannot see, with a sentence saying what to try instead (`sky`, `sunset`).
///
/// `ClassifyIndexing` installs it in an index with the taxonomy; search answers a label's name
/// first and the vocabulary next. Format: `Models/FORMAT.md`.
///
/// ```swift
/// let vocabulary = try SearchVocabulary(contentsOf: directory.appending(path: "vocabulary.json"), taxonomy: taxonomy)
/// print(vocabulary.word("beach")?.labels ?? [])     // ["seashore", "sandbar", "breakwater"]
/// ```
public struct SearchVocabulary: Sendable {
    /// The `formatVersion` this library reads.
    public static let supportedFormatVersion = 1

    /// One word of the vocabulary.
    public struct Word: Sendable, Hashable {
        /// The word, lowercase with single spaces (`beach`, `living room`).
        public var word: String
        /// Identifiers of the labels that are evidence for it; empty for an unsupported word.
        public var labels: [String]
        /// For a word the classifier cannot see: the sentence shown instead of results.
        public var unsupported: String?
        /// Once faces are indexed, the word also stands for images with at least this many faces.
        public var facesAtLeast: Int?
        /// Why the word means what it means.
        public var reason: String

        /// Creates a word: mapped when `unsupported` is nil.
        ///
        /// ```swift
        /// SearchVocabulary.Word(word: "lake", labels: ["lakeside"], reason: "lake scenes")
        /// ```
        public init(word: String, labels: [String] = [], unsupported: String? = nil, facesAtLeast: Int? = nil, reason: String) {
            self.word = word
            self.labels = labels
            self.unsupported = unsupported
            self.facesAtLeast = facesAtLeast
            self.reason = reason
        }
    }

    /// Content version of the vocabulary (`vocabularyVersion`), bumped when its words change.
    public let version: String
    /// The words, sorted.
    public let words: [Word]
    private let indexByWord: [String: Int]

    /// Checks `words` against `taxonomy`: every label named exists, no word twice, each word mapped
    /// or unsupported, and a word that is a label's name lists that label (it widens the name).
    ///
    /// ```swift
    /// let vocabulary = try SearchVocabulary(words: [.init(word: "puppy", labels: ["dog"], reason: "young dogs")],
    ///                                       version: "1", taxonomy: taxonomy)
    /// ```
    public init(words: [Word], version: String, taxonomy: LabelTaxonomy, file: String = "vocabulary.json") throws(ModelLoadingError) {
        let entries = words.map {
            VocabularyCheck.Entry(
                word: $0.word, labels: $0.unsupported == nil || !$0.labels.isEmpty ? $0.labels : nil,
                unsupported: $0.unsupported, facesAtLeast: $0.facesAtLeast)
        }
        let names = taxonomy.labels.map { (identifier: $0.identifier, names: [$0.identifier, $0.displayName] + $0.synonyms) }
        if let problem = VocabularyCheck.firstProblem(entries, labels: names) {
            throw .malformed(file: file, reason: problem)
        }
        self.version = version
        self.words = words.sorted { $0.word < $1.word }
        indexByWord = Dictionary(uniqueKeysWithValues: self.words.enumerated().map { ($0.element.word, $0.offset) })
    }

    /// Reads `vocabulary.json` (format in `Models/FORMAT.md`) and checks it against `taxonomy`.
    ///
    /// ```swift
    /// let vocabulary = try SearchVocabulary(contentsOf: url, taxonomy: model.labelSet.taxonomy)
    /// ```
    public init(contentsOf url: URL, taxonomy: LabelTaxonomy) throws(ModelLoadingError) {
        let file = url.lastPathComponent
        struct FileContents: VersionedModelFile {
            struct Entry: Decodable {
                var word: String, labels: [String]?, unsupported: String?, facesAtLeast: Int?, reason: String
            }
            var format: String, formatVersion: Int, vocabularyVersion: String, words: [Entry]
        }
        let contents = try ModelJSONFile.read(
            FileContents.self, from: url, format: "classify-vocabulary", supportedVersion: Self.supportedFormatVersion)
        for entry in contents.words where (entry.labels == nil) == (entry.unsupported == nil) {
            throw .malformed(file: file, reason: "word '\(entry.word)' needs either labels or an unsupported sentence, not both or neither")
        }
        try self.init(
            words: contents.words.map {
                Word(word: $0.word, labels: $0.labels ?? [], unsupported: $0.unsupported, facesAtLeast: $0.facesAtLeast, reason: $0.reason)
            },
            version: contents.vocabularyVersion, taxonomy: taxonomy, file: file)
    }

    /// The entry for exactly this word (lowercase, single spaces), without inflections; search
    /// itself also tries singular forms (see `SQLiteIndex.meaning(of:)`).
    ///
    /// ```swift
    /// let sky = vocabulary.word("sky")?.unsupported
    /// ```
    public func word(_ word: String) -> Word? { indexByWord[NameForms.normalized(word)].map { words[$0] } }
}
