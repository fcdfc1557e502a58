/// An index that many indexers fill at the same time, on this machine and others: a database
/// server such as PostgreSQL (the module TagIndexPostgres implements it). A SQLite index has one
/// writer at a time and is kept in sync by ``IndexRun`` instead.
///
/// An indexer asks what the index was last indexed with, then begins a run: the run queues the
/// files its walk finds, and any number of workers claim, resolve and write them (see
/// ``SharedIndexRun`` and ``SharedIndexWorker``).
///
/// Usage:
/// ```swift
/// let index = try IndexOpener.standard.sharedIndex(at: location)
/// let run = try await index.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: SharedRunSettings())
/// ```
public protocol SharedIndex: Sendable {
    /// The model stamp of the taxonomy last installed, nil for an index never indexed into;
    /// fails with a clear error when the database cannot be reached.
    ///
    /// Usage: `let stamp = try await index.installedModel()`
    func installedModel() async throws -> String?

    /// Brings the schema up to date, installs the taxonomy (once, however many runs start
    /// together) and begins a run over `roots`.
    ///
    /// Usage: `let run = try await index.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: SharedRunSettings())`
    func beginRun(
        roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], settings: SharedRunSettings
    ) async throws -> any SharedIndexRun
}
