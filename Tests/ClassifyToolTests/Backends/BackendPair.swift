import Foundation
import Testing

/// A fresh SQLite file and a fresh PostgreSQL database that every write of the behaviour suite
/// goes to, one after the other, through the built `classify-tool`.
///
/// Usage: `let pair = try BackendPair(folder); let (a, b) = try pair.run(["index", folder.photos.path])`
struct BackendPair {
    let folder: ScenarioFolder
    /// The SQLite index file.
    let sqlite: String
    /// The PostgreSQL index: a new database on the cluster of Scripts/dev-postgres.
    let postgres: String

    init(_ folder: ScenarioFolder) throws {
        self.folder = folder
        sqlite = folder.fixture.root.appending(path: "index.sqlite").path
        postgres = try DevPostgres.freshDatabase()
    }

    /// What one command printed on each backend.
    struct Outputs {
        var sqlite: Tool.Result
        var postgres: Tool.Result
    }

    /// Runs `arguments` with `--db` of each backend (SQLite first), in the photo folder.
    func run(_ arguments: [String]) throws -> Outputs {
        Outputs(
            sqlite: try Tool.run(arguments + ["--db", sqlite], in: folder.photos),
            postgres: try Tool.run(arguments + ["--db", postgres], in: folder.photos))
    }

    /// Indexes the photo folder into both (with `extra` options), expects the same exit status and
    /// the same summary (its duration and the database's name aside), and returns SQLite's counts.
    ///
    /// `twinsReclassified`: the run classifies again two files of the same content (after a new
    /// model stamp). Then how the summary splits them between `updated` and `copied` is a known
    /// difference (below); the total, every other count and the rows written must still agree.
    @discardableResult
    func index(
        _ extra: [String] = [], _ step: String, twinsReclassified: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Int] {
        let outputs = try run(["index", folder.photos.path] + extra)
        #expect(outputs.sqlite.status == outputs.postgres.status, "\(step): \(outputs.sqlite.stderr) | \(outputs.postgres.stderr)", sourceLocation: sourceLocation)
        #expect(outputs.sqlite.stderr == outputs.postgres.stderr, "\(step): index stderr", sourceLocation: sourceLocation)
        let counts = Normalised.counts(ofIndexSummary: outputs.sqlite.stdout)
        try #require(!counts.isEmpty, "\(step): no summary in \(outputs.sqlite.stdout) \(outputs.sqlite.stderr)", sourceLocation: sourceLocation)
        let summaries = (Normalised.indexSummary(outputs.sqlite.stdout), Normalised.indexSummary(outputs.postgres.stdout))
        guard twinsReclassified else {
            #expect(summaries.0 == summaries.1, "\(step): the index summaries", sourceLocation: sourceLocation)
            return counts
        }
        let postgresCounts = Normalised.counts(ofIndexSummary: outputs.postgres.stdout)
        let merged = { (counts: [String: Int]) in
            var merged = counts
            merged["updated"] = nil
            merged["copied"] = nil
            merged["updated or copied"] = (counts["updated"] ?? 0) + (counts["copied"] ?? 0)
            return merged
        }
        #expect(merged(counts) == merged(postgresCounts), "\(step): the index summaries, updated and copied together", sourceLocation: sourceLocation)
        #expect(
            summaries.0.split(separator: "\n").dropFirst() == summaries.1.split(separator: "\n").dropFirst(),
            "\(step): the failures listed", sourceLocation: sourceLocation)
        // Known difference, in how the work is split, not in what is stored: SQLite's indexer
        // (FolderIndexer, IndexRun.resolve) looks each file's content up just before classifying
        // it, so the second of two files with one content counts as `copied` when the batch with
        // its twin was committed before (a batch commits after a second or 64 files), else as
        // `updated`: it depends on timing. PostgreSQL's worker (PostgresIndexWorker.resolve) looks
        // a whole claim (up to 32 files) up before it classifies any of them, so both count as
        // `updated`. Either way the same rows are written (compared after this run).
        withKnownIssue("updated/copied split of twins classified again differs by timing on SQLite", isIntermittent: true) {
            #expect(summaries.0 == summaries.1, "\(step): the index summaries", sourceLocation: sourceLocation)
        }
        return counts
    }

    /// Runs one correction (or any other write) on both and expects the same status and messages.
    func write(_ arguments: [String], _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outputs = try run(arguments)
        #expect(outputs.sqlite.status == outputs.postgres.status, "\(step): \(arguments)", sourceLocation: sourceLocation)
        #expect(outputs.sqlite.stdout == outputs.postgres.stdout, "\(step): \(arguments)", sourceLocation: sourceLocation)
        #expect(outputs.sqlite.stderr == outputs.postgres.stderr, "\(step): \(arguments)", sourceLocation: sourceLocation)
    }

    /// What every read command answers on each backend now, write times dropped.
    func answers(gone: [String] = [], model: String? = nil) throws -> (sqlite: IndexAnswers, postgres: IndexAnswers) {
        let files = try folder.files()
        return (
            try IndexAnswers(database: sqlite, photos: folder.photos, files: files, gone: gone, model: model, exact: false),
            try IndexAnswers(database: postgres, photos: folder.photos, files: files, gone: gone, model: model, exact: false))
    }

    /// Expects every read command to answer the same on both backends (`model`: the model folder
    /// the indexes were last built with, if not the bundled one); returns SQLite's answers.
    @discardableResult
    func expectSameAnswers(
        _ step: String, gone: [String] = [], model: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> IndexAnswers {
        let (a, b) = try answers(gone: gone, model: model)
        a.expectSame(as: b, step, sourceLocation: sourceLocation)
        return a
    }
}
