import Foundation

/// A SQLite file as index runs write it: one run at a time (the writer lock), its queue of files
/// kept in this process, its writes batched into transactions (``SQLiteWriterRun``).
extension SQLiteIndex: IndexWriter {
    /// One file per claim: the run batches the writes itself, so a worker holds no more than
    /// one file's bytes while it reads and classifies.
    ///
    /// Usage: `index.preferredClaimSize   // 1`
    public var preferredClaimSize: Int { 1 }

    /// Takes the writer lock (``TagIndexError/anotherRunInProgress(path:)`` when another run holds
    /// it), installs the taxonomy and begins a run over `roots`, which must be unnamed (a SQLite
    /// file stores absolute paths).
    ///
    /// Usage: `let run = try await index.beginRun(roots: [try LibraryRoot(parsing: "/photos")], labels: labels, model: stamp, vocabulary: words, settings: RunSettings())`
    public func beginRun(
        roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], settings: RunSettings
    ) async throws -> any IndexWriterRun {
        guard !roots.isEmpty else { throw TagIndexError.invalidInput("an index run needs at least one folder") }
        if let named = roots.first(where: { $0.name != nil }) { throw TagIndexError.namedRootOnFile(named) }
        // The lock first: a second run stops at once with "another index run is writing" instead
        // of waiting for the first run's transaction to write the taxonomy.
        let run = try beginRun(roots: roots.map { $0.localPath.isEmpty ? "/" : $0.localPath }, model: model)
        do {
            try replaceTaxonomy(labels, model: model, vocabulary: vocabulary)
        } catch {
            run.cancel()
            throw error
        }
        return SQLiteWriterRun(run: run, index: self, settings: settings)
    }
}

extension TagIndexError {
    /// A named library root given for a SQLite file, which stores absolute paths.
    ///
    /// Usage: `throw TagIndexError.namedRootOnFile(root)`
    public static func namedRootOnFile(_ root: LibraryRoot) -> TagIndexError {
        .invalidInput(
            "the named library root \(root) needs a shared index such as PostgreSQL (--db postgres://...); a SQLite index stores absolute paths, so give the folder alone")
    }
}
