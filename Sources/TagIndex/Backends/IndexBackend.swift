import Foundation

/// What the commands and the gallery read from and correct in an index, whichever database holds
/// it: the SQLite ``SQLiteIndex`` and the PostgreSQL index of the module TagIndexPostgres both
/// conform, with the same answers on the same index (the behaviour suites run the same commands
/// on both). Index runs go through ``IndexOpener`` too: ``IndexOpener/openForIndexing(_:)``.
///
/// The SQLite index answers synchronously; its methods satisfy the asynchronous requirements as
/// they are (a caller that must keep blocking reads off Swift's cooperative threads runs them
/// with a task executor preference, as the gallery does).
///
/// Usage:
/// ```swift
/// let index: any IndexBackend = try await IndexOpener.standard.open(location)
/// let counts = try await index.labelImageCounts()
/// await index.close()
/// ```
public protocol IndexBackend: IndexCopySource, PeopleStore, AnyObject {
    /// Runs a query (see ``SQLiteIndex/search(_:)-(Query)``).
    ///
    /// Usage: `let page = try await index.search(try Query(parsing: "dog"))`
    func search(_ query: Query) async throws -> SearchPage

    /// Whether any label has a precision/recall curve.
    ///
    /// Usage: `if try await index.hasCalibration() { query.calibration = .highRecall }`
    func hasCalibration() async throws -> Bool

    /// For every label with at least one image, how many images carry it (itself or below it).
    ///
    /// Usage: `let counts = try await index.labelImageCounts()`
    func labelImageCounts() async throws -> [String: Int]

    /// The search vocabulary installed with the taxonomy, sorted by word.
    ///
    /// Usage: `let words = try await index.vocabulary()`
    func vocabulary() async throws -> [VocabularyWord]

    /// What a search term means (see ``SQLiteIndex/meaning(of:)``).
    ///
    /// Usage: `let meaning = try await index.meaning(of: "beach")`
    func meaning(of term: String) async throws -> TermMeaning

    /// Calls `body` with one export record per image, sorted by path, streaming (see
    /// ``SQLiteIndex/exportRecords(matching:filter:_:)``).
    ///
    /// Usage: `try await index.exportRecords(matching: nil, filter: .highPrecision) { print($0.path) }`
    func exportRecords(matching query: Query?, filter: CalibratedFilter?, _ body: (ExportRecord) throws -> Void) async throws

    /// Groups of near-duplicate images, largest first (see ``SQLiteIndex/duplicateGroups(threshold:query:)``).
    ///
    /// Usage: `let groups = try await index.duplicateGroups(threshold: 0.8, query: Query())`
    func duplicateGroups(threshold: Double, query: Query) async throws -> [DuplicateGroup]

    /// Every pair of images scoring at least `minimumScore`, best first.
    ///
    /// Usage: `let pairs = try await index.similarPairs(minimumScore: 0.7, query: Query())`
    func similarPairs(minimumScore: Double, query: Query) async throws -> [SimilarPair]

    /// Similar images to the indexed file at `path` (see ``SQLiteIndex/similar(toPath:query:minimumScore:)``).
    ///
    /// Usage: `let page = try await index.similar(toPath: path, query: Query(), minimumScore: 0)`
    func similar(toPath path: String, query: Query, minimumScore: Double) async throws -> SearchPage

    /// Images whose feature prints are near `featurePrint` (a photo classified now, not indexed),
    /// best first (see ``SQLiteIndex/similar(to:query:minimumScore:excludingPath:)``).
    ///
    /// Usage: `let page = try await index.similar(to: observation.featurePrint.values, query: Query(), minimumScore: 0, excludingPath: nil)`
    func similar(to featurePrint: [Float], query: Query, minimumScore: Double, excludingPath: String?) async throws -> SearchPage

    /// Images whose dominant colors are near `color` (see ``SQLiteIndex/search(color:query:)``).
    ///
    /// Usage: `let page = try await index.search(color: IndexedColor(hex: "1E90FF")!, query: Query())`
    func search(color: IndexedColor, query: Query) async throws -> SearchPage

    /// The near-duplicate group of one image (see
    /// ``SQLiteIndex/duplicateGroup(containingPath:threshold:maximumMembers:knownNeighbours:)``).
    ///
    /// Usage: `let group = try await index.duplicateGroup(containingPath: path, threshold: 0.8, maximumMembers: 60, knownNeighbours: nil)`
    func duplicateGroup(containingPath path: String, threshold: Double, maximumMembers: Int, knownNeighbours: [Int64]?) async throws -> DuplicateGroup?

    /// The stored path of the image with id `imageID`, or nil (see ``SQLiteIndex/imagePath(forID:)``).
    ///
    /// Usage: `let path = try await index.imagePath(forID: 42)`
    func imagePath(forID imageID: Int64) async throws -> String?

    /// What the index holds about one file, or nil when it is not indexed (see ``SQLiteIndex/image(atPath:)``).
    ///
    /// Usage: `let image = try await index.image(atPath: path)`
    func image(atPath path: String) async throws -> IndexedImage?

    /// The stored labels of one file, most confident first (see ``SQLiteIndex/labels(forPath:)``).
    ///
    /// Usage: `let labels = try await index.labels(forPath: path)`
    func labels(forPath path: String) async throws -> [ImageLabel]

    /// The stored labels of several images at once (see ``SQLiteIndex/labels(forImageIDs:)``).
    ///
    /// Usage: `let labels = try await index.labels(forImageIDs: page.hits.map(\.imageID))`
    func labels(forImageIDs imageIDs: [Int64]) async throws -> [Int64: [ImageLabel]]

    /// The faces stored for one file, or nil when faces were not looked for (see ``SQLiteIndex/faces(forPath:)``).
    ///
    /// Usage: `let faces = try await index.faces(forPath: path) ?? []`
    func faces(forPath path: String) async throws -> [IndexedFace]?

    /// The date taken, position, camera and place stored for one file; nil when it is not indexed
    /// or its metadata was not read yet (see ``SQLiteIndex/metadata(forPath:)``).
    ///
    /// Usage: `let taken = try await index.metadata(forPath: path)?.taken?.iso8601`
    func metadata(forPath path: String) async throws -> IndexedMetadata?

    /// The stored metadata of several images at once; images without any are left out.
    ///
    /// Usage: `let metadata = try await index.metadata(forImageIDs: page.hits.map(\.imageID))`
    func metadata(forImageIDs imageIDs: [Int64]) async throws -> [Int64: IndexedMetadata]

    /// When and where the photos `query` finds were taken: every month, and the `places` countries
    /// and towns with the most photos (see ``SQLiteIndex/whenAndWhere(_:places:)``).
    ///
    /// Usage: `let facets = try await index.whenAndWhere(query, places: 8)`
    func whenAndWhere(_ query: Query, places: Int) async throws -> WhenAndWhere

    /// The stored dominant colors of one file, heaviest first (see ``SQLiteIndex/dominantColors(forPath:)``).
    ///
    /// Usage: `let colors = try await index.dominantColors(forPath: path)`
    func dominantColors(forPath path: String) async throws -> [IndexedColor]

    /// Every label of the taxonomy with its place and image count (see ``SQLiteIndex/labelCatalog()``).
    ///
    /// Usage: `let catalog = try await index.labelCatalog()`
    func labelCatalog() async throws -> [CatalogLabel]

    /// Labels and vocabulary words completing a typed prefix (see ``SQLiteIndex/labelCompletions(forPrefix:limit:)``).
    ///
    /// Usage: `let completions = try await index.labelCompletions(forPrefix: "retr", limit: 8)`
    func labelCompletions(forPrefix prefix: String, limit: Int) async throws -> [LabelCompletion]

    /// How many labels at least one image carries (itself or below it).
    ///
    /// Usage: `let inUse = try await index.labelsInUseCount()`
    func labelsInUseCount() async throws -> Int

    /// Every correction, newest first (see ``SQLiteIndex/corrections()``).
    ///
    /// Usage: `let corrections = try await index.corrections()`
    func corrections() async throws -> [LabelCorrection]

    /// The corrections that apply to one file (see ``SQLiteIndex/corrections(forPath:)``).
    ///
    /// Usage: `let corrections = try await index.corrections(forPath: path)`
    func corrections(forPath path: String) async throws -> [LabelCorrection]

    /// Adds a label to files, a name of the taxonomy or one of the user's own (see
    /// ``SQLiteIndex/addLabel(_:to:)``).
    ///
    /// Usage: `let report = try await index.addLabel("grandma", to: [path])`
    func addLabel(_ name: String, to paths: [String]) async throws -> CorrectionReport

    /// Removes a label from files (see ``SQLiteIndex/removeLabel(_:from:)``).
    ///
    /// Usage: `let report = try await index.removeLabel("cat", from: [path])`
    func removeLabel(_ name: String, from paths: [String]) async throws -> CorrectionReport

    /// Takes back a correction, so the model's labels apply again (see ``SQLiteIndex/clearCorrection(of:on:)``).
    ///
    /// Usage: `let report = try await index.clearCorrection(of: "cat", on: [path])`
    func clearCorrection(of name: String, on paths: [String]) async throws -> CorrectionReport

    /// Counts of what the index holds (see ``SQLiteIndex/statistics()``).
    ///
    /// Usage: `let stats = try await index.statistics()`
    func statistics() async throws -> IndexStatistics

    /// The model stamps that produced the indexed files, most used first (see ``SQLiteIndex/modelUsage()``).
    ///
    /// Usage: `let models = try await index.modelUsage()`
    func modelUsage() async throws -> [ModelUsage]

    /// The space the index takes: the SQLite file with its journal, or the PostgreSQL database.
    ///
    /// Usage: `let bytes = try await index.databaseBytes()`
    func databaseBytes() async throws -> Int64

    /// A value that changes whenever an index run adds, re-classifies or removes a file (see
    /// ``SQLiteIndex/contentVersion()``).
    ///
    /// Usage: `let version = try await index.contentVersion()`
    func contentVersion() async throws -> IndexContentVersion

    /// Whether the connection to the database is gone (the server restarted or went away), so
    /// the index must be opened again before it can answer (never for SQLite).
    ///
    /// Usage: `if index.isConnectionClosed { index = try await opener.open(location) }`
    var isConnectionClosed: Bool { get }

    /// Gives back the connection (nothing to do for SQLite).
    ///
    /// Usage: `await index.close()`
    func close() async
}
