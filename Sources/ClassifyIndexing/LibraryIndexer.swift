import Classify
import Foundation
import TagIndex

/// Keeps the index at any location in sync with folders, whichever database holds it: a SQLite
/// file through ``FolderIndexer`` (one run at a time, batched transactions), a database server
/// through ``SharedFolderIndexer`` (any number of indexers at once, claims with leases). Both
/// report a ``FolderIndexer/Report``; a program opens the destination with ``IndexOpener`` and
/// never asks which database it has.
///
/// ```swift
/// let indexer = try LibraryIndexer(location: location, opener: .standard)
/// let faces = IndexVocabulary.hasFaces(stamp: try await indexer.installedModel())
/// let report = try await indexer.run(LibraryIndexer.Options(roots: [try LibraryRoot(parsing: "/home/me/Pictures")]),
///                                    classifier: try ImageClassifier())
/// print(report.summary)
/// ```
public struct LibraryIndexer: Sendable {
    /// What to index and how; the settings that only one kind of database uses say so.
    public struct Options: Sendable {
        /// The folders. A named root (`photos=/mnt/photos`) needs a shared index; a SQLite file
        /// stores absolute paths.
        public var roots: [LibraryRoot]
        /// Images classified at once (default: number of cores).
        public var jobs: Int?
        public var includeHidden = false
        /// `fnmatch` patterns matched against names and full paths.
        public var excludes: [String] = []
        /// Files written per transaction of a SQLite file (at most; a batch also ends after a
        /// second). Default: 64.
        public var batchSize: Int?
        /// Files a worker of a shared index claims (and writes) at once. Default: 32.
        public var claimSize: Int?
        /// Leases, patience with server faults, abandoned claims (a shared index).
        public var sharedSettings = SharedRunSettings()
        /// Called (from the walk) with each file passed over as not an image.
        public var skippedFile: (@Sendable (String) -> Void)?

        /// Usage: `var options = LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder)], jobs: 2)`
        public init(roots: [LibraryRoot], jobs: Int? = nil, includeHidden: Bool = false, excludes: [String] = []) {
            self.roots = roots
            self.jobs = jobs
            self.includeHidden = includeHidden
            self.excludes = excludes
        }
    }

    /// Where the runs write.
    public let destination: IndexDestination

    /// Opens the index at `location` for index runs (a SQLite file is created when there is none).
    ///
    /// Usage: `let indexer = try LibraryIndexer(location: .sqlite(url), opener: IndexOpener())`
    public init(location: IndexLocation, opener: IndexOpener) throws {
        destination = try opener.openForIndexing(location)
    }

    /// Runs on an index already opened.
    ///
    /// Usage: `let indexer = LibraryIndexer(destination: .file(index))`
    public init(destination: IndexDestination) {
        self.destination = destination
    }

    /// Fails, saying why, when an index at `location` cannot take `roots`: a named root needs a
    /// shared index (a SQLite file stores absolute paths). Call it before opening, so nothing is
    /// created for a run that cannot start.
    ///
    /// Usage: `try LibraryIndexer.check(roots, for: location)`
    public static func check(_ roots: [LibraryRoot], for location: IndexLocation) throws {
        guard case .sqlite = location else { return }
        try requireUnnamed(roots)
    }

    /// Fails for a named root, which a SQLite file cannot store.
    private static func requireUnnamed(_ roots: [LibraryRoot]) throws {
        guard let named = roots.first(where: { $0.name != nil }) else { return }
        throw TagIndexError.invalidInput(
            "the named library root \(named) needs a shared index such as PostgreSQL (--db postgres://...); a SQLite index stores absolute paths, so give the folder alone")
    }

    /// The model stamp of the taxonomy last installed, nil for an index never indexed into (the
    /// first look at a server: one that cannot be reached fails here).
    ///
    /// Usage: `let faces = IndexVocabulary.hasFaces(stamp: try await indexer.installedModel())`
    public func installedModel() async throws -> String? {
        try await destination.installedModel()
    }

    /// Runs one index pass over `options.roots`; `progress` is called as files are written.
    ///
    /// Usage: `let report = try await indexer.run(options, classifier: classifier, faceDetector: nil) { print($0.done) }`
    public func run(
        _ options: Options, classifier: ImageClassifier, faceDetector: FaceDetector? = nil,
        progress: @escaping @Sendable (FolderIndexer.Progress) -> Void = { _ in }
    ) async throws -> FolderIndexer.Report {
        switch destination {
        case .file(let index):
            try Self.requireUnnamed(options.roots)
            var fileOptions = FolderIndexer.Options(
                roots: options.roots.map { $0.localPath.isEmpty ? "/" : $0.localPath }, jobs: options.jobs,
                includeHidden: options.includeHidden, excludes: options.excludes)
            if let batchSize = options.batchSize { fileOptions.batchSize = batchSize }
            fileOptions.skippedFile = options.skippedFile
            let indexer = FolderIndexer(index: index, classifier: classifier, faceDetector: faceDetector)
            return try await indexer.run(fileOptions, progress: progress)
        case .shared(let index):
            var sharedOptions = SharedFolderIndexer.Options(
                roots: options.roots, jobs: options.jobs, includeHidden: options.includeHidden, excludes: options.excludes)
            if let claimSize = options.claimSize { sharedOptions.claimSize = claimSize }
            sharedOptions.settings = options.sharedSettings
            sharedOptions.skippedFile = options.skippedFile
            let indexer = SharedFolderIndexer(database: index, classifier: classifier, faceDetector: faceDetector)
            return try await indexer.run(sharedOptions, progress: progress)
        }
    }
}
