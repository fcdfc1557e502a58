/// What the commands read from (and correct in) an index, whichever database holds it: the
/// SQLite ``TagIndex`` and the PostgreSQL ``PostgresIndex`` both conform, with the same answers on
/// the same index (the PostgreSQL suites compare them on copies of one index).
///
/// The SQLite index answers synchronously; its methods satisfy the asynchronous requirements as
/// they are. Backend-specific calls (index runs, similar images, colors) stay on the types.
///
/// Usage:
/// ```swift
/// let index: any IndexBackend = try await PostgresIndex.open(descriptor)
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
}

extension PostgresIndex: IndexBackend {}
