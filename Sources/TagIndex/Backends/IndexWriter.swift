/// The writing half of the backend seam (``IndexBackend`` is the reading half): index runs, with
/// their claims, batches and removals, and the taxonomy each run installs. Both backends
/// implement it: a SQLite file (``SQLiteIndex``, one run at a time, its writes batched in
/// transactions) and a database server (the module TagIndexPostgres: any number of indexers at
/// once, on this machine and others). The indexer of the module ClassifyIndexing drives either
/// through this protocol alone.
///
/// An indexer asks what the index was last indexed with, then begins a run: the run queues the
/// files its walk finds, and any number of workers claim, resolve and write them (see
/// ``IndexWriterRun`` and ``IndexWriterWorker``).
///
/// Usage:
/// ```swift
/// let writer = try IndexOpener.standard.openForIndexing(location)
/// let run = try await writer.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: RunSettings())
/// ```
public protocol IndexWriter: Sendable {
    /// Files a worker claims (and writes) at once unless the indexer says otherwise: one for a
    /// SQLite file, whose run batches writes itself; a batch for a server, one round trip each.
    ///
    /// Usage: `let claimSize = options.claimSize ?? writer.preferredClaimSize`
    var preferredClaimSize: Int { get }

    /// The model stamp of the taxonomy last installed, nil for an index never indexed into;
    /// fails with a clear error when the database cannot be reached.
    ///
    /// Usage: `let stamp = try await writer.installedModel()`
    func installedModel() async throws -> String?

    /// How many images each label has (identifier -> count), empty for an index never indexed
    /// into: an indexer keeps a label its run would not install while images still carry it.
    ///
    /// Usage: `let keepsFaces = try await writer.labelImageCounts()["face", default: 0] > 0`
    func labelImageCounts() async throws -> [String: Int]

    /// Brings the schema up to date, installs the taxonomy (once, however many runs start
    /// together) and begins a run over `roots`. A SQLite file refuses a second run while one is
    /// going (``TagIndexError/anotherRunInProgress(path:)``) and a named root (it stores absolute
    /// paths).
    ///
    /// Usage: `let run = try await writer.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: RunSettings())`
    func beginRun(
        roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], settings: RunSettings
    ) async throws -> any IndexWriterRun
}
