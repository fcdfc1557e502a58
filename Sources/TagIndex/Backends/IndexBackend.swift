import Foundation

/// What the commands read from (and correct in) an index, whichever database holds it: the
/// SQLite ``TagIndex`` and the PostgreSQL index of the module TagIndexPostgres both conform, with
/// the same answers on the same index (the behaviour suites compare them on copies of one index).
///
/// The SQLite index answers synchronously; its methods satisfy the asynchronous requirements as
/// they are (a caller that must keep blocking reads off Swift's cooperative threads runs them
/// with a task executor preference, as the gallery does). Index runs and corrections stay on the
/// types.
///
/// Usage:
/// ```swift
/// let index: any IndexBackend = try await IndexOpener.standard.open(location)
/// let counts = try await index.labelImageCounts()
/// await index.close()
/// ```
public protocol IndexBackend: AnyObject, Sendable {
    /// Runs a query (see ``TagIndex/search(_:)-(Query)``).
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

    /// What a search term means (see ``TagIndex/meaning(of:)``).
    ///
    /// Usage: `let meaning = try await index.meaning(of: "beach")`
    func meaning(of term: String) async throws -> TermMeaning

    /// Calls `body` with one export record per image, sorted by path, streaming (see
    /// ``TagIndex/exportRecords(matching:filter:_:)``).
    ///
    /// Usage: `try await index.exportRecords(matching: nil, filter: .highPrecision) { print($0.path) }`
    func exportRecords(matching query: Query?, filter: CalibratedFilter?, _ body: (ExportRecord) throws -> Void) async throws

    /// Groups of near-duplicate images, largest first (see ``TagIndex/duplicateGroups(threshold:query:)``).
    ///
    /// Usage: `let groups = try await index.duplicateGroups(threshold: 0.8, query: Query())`
    func duplicateGroups(threshold: Double, query: Query) async throws -> [DuplicateGroup]

    /// Every pair of images scoring at least `minimumScore`, best first.
    ///
    /// Usage: `let pairs = try await index.similarPairs(minimumScore: 0.7, query: Query())`
    func similarPairs(minimumScore: Double, query: Query) async throws -> [SimilarPair]

    /// Similar images to the indexed file at `path` (see ``TagIndex/similar(toPath:query:minimumScore:)``).
    ///
    /// Usage: `let page = try await index.similar(toPath: path, query: Query(), minimumScore: 0)`
    func similar(toPath path: String, query: Query, minimumScore: Double) async throws -> SearchPage

    /// Images whose dominant colors are near `color` (see ``TagIndex/search(color:query:)``).
    ///
    /// Usage: `let page = try await index.search(color: IndexedColor(hex: "1E90FF")!, query: Query())`
    func search(color: IndexedColor, query: Query) async throws -> SearchPage

    /// The near-duplicate group of one image (see
    /// ``TagIndex/duplicateGroup(containingPath:threshold:maximumMembers:knownNeighbours:)``).
    ///
    /// Usage: `let group = try await index.duplicateGroup(containingPath: path, threshold: 0.8, maximumMembers: 60, knownNeighbours: nil)`
    func duplicateGroup(containingPath path: String, threshold: Double, maximumMembers: Int, knownNeighbours: [Int64]?) async throws -> DuplicateGroup?

    /// The stored path of the image with id `imageID`, or nil (see ``TagIndex/imagePath(forID:)``).
    ///
    /// Usage: `let path = try await index.imagePath(forID: 42)`
    func imagePath(forID imageID: Int64) async throws -> String?

    /// What the index holds about one file, or nil when it is not indexed (see ``TagIndex/image(atPath:)``).
    ///
    /// Usage: `let image = try await index.image(atPath: path)`
    func image(atPath path: String) async throws -> IndexedImage?

    /// The stored labels of one file, most confident first (see ``TagIndex/labels(forPath:)``).
    ///
    /// Usage: `let labels = try await index.labels(forPath: path)`
    func labels(forPath path: String) async throws -> [ImageLabel]

    /// The stored labels of several images at once (see ``TagIndex/labels(forImageIDs:)``).
    ///
    /// Usage: `let labels = try await index.labels(forImageIDs: page.hits.map(\.imageID))`
    func labels(forImageIDs imageIDs: [Int64]) async throws -> [Int64: [ImageLabel]]

    /// The faces stored for one file, or nil when faces were not looked for (see ``TagIndex/faces(forPath:)``).
    ///
    /// Usage: `let faces = try await index.faces(forPath: path) ?? []`
    func faces(forPath path: String) async throws -> [IndexedFace]?

    /// The stored dominant colors of one file, heaviest first (see ``TagIndex/dominantColors(forPath:)``).
    ///
    /// Usage: `let colors = try await index.dominantColors(forPath: path)`
    func dominantColors(forPath path: String) async throws -> [IndexedColor]

    /// Every label of the taxonomy with its place and image count (see ``TagIndex/labelCatalog()``).
    ///
    /// Usage: `let catalog = try await index.labelCatalog()`
    func labelCatalog() async throws -> [CatalogLabel]

    /// Labels and vocabulary words completing a typed prefix (see ``TagIndex/labelCompletions(forPrefix:limit:)``).
    ///
    /// Usage: `let completions = try await index.labelCompletions(forPrefix: "retr", limit: 8)`
    func labelCompletions(forPrefix prefix: String, limit: Int) async throws -> [LabelCompletion]

    /// Counts of what the index holds (see ``TagIndex/statistics()``).
    ///
    /// Usage: `let stats = try await index.statistics()`
    func statistics() async throws -> IndexStatistics

    /// The model stamps that produced the indexed files, most used first (see ``TagIndex/modelUsage()``).
    ///
    /// Usage: `let models = try await index.modelUsage()`
    func modelUsage() async throws -> [ModelUsage]

    /// The space the index takes: the SQLite file with its journal, or the PostgreSQL database.
    ///
    /// Usage: `let bytes = try await index.databaseBytes()`
    func databaseBytes() async throws -> Int64

    /// A value that changes whenever an index run adds, re-classifies or removes a file (see
    /// ``TagIndex/contentVersion()``).
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

extension TagIndex: IndexBackend {
    /// Nothing to close: the SQLite connection goes with the object.
    ///
    /// Usage: `await index.close()`
    public func close() async {}

    /// A SQLite file is never disconnected.
    ///
    /// Usage: `index.isConnectionClosed == false`
    public var isConnectionClosed: Bool { false }

    /// The file's size with its write-ahead log and shared-memory file.
    ///
    /// Usage: `let bytes = try index.databaseBytes()`
    public func databaseBytes() throws -> Int64 {
        ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
            total + (((try? FileManager.default.attributesOfItem(atPath: location + suffix))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
