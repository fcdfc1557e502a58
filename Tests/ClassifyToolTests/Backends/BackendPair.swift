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

    /// A known difference between the backends' index summaries: which kinds of count may split
    /// the same files differently, and why. The total of those counts, every other count and the
    /// rows written must still agree.
    struct SplitDifference {
        var counts: Set<String>
        var why: Comment
    }

    /// Two files of one content both classified again (after a new model stamp). SQLite's indexer
    /// (LibraryIndexer with SQLite's IndexRun.resolve) looks each file's content up just before classifying it,
    /// so the second counts as `copied` when the batch with its twin was committed before (a batch
    /// commits after a second or 64 files), else as `updated`: it depends on timing. PostgreSQL's
    /// worker (PostgresIndexWorker.resolve) looks a whole claim (up to 32 files) up before it
    /// classifies any of them, so both count as `updated`.
    static let twinsClassifiedAgain = SplitDifference(
        counts: ["updated", "copied"],
        why: "twins classified again: SQLite counts the second as copied when its twin was committed first (timing), PostgreSQL as updated")

    /// A content that moves to a path whose own content moves on in the same run. Both backends
    /// resolve one file at a time against the rows as they are then (a copy overwrites the row
    /// at its path), so the outcome depends on the order: SQLite resolves in the order the walk
    /// (readdir) and its concurrent readers reach the files, PostgreSQL in path order within a
    /// claim. A content whose only row was overwritten first is classified again (`new`), else
    /// it is `copied`; which twin takes a `move` depends on the order as well.
    static let contentChangesPlaces = SplitDifference(
        counts: ["new", "updated", "moved", "copied"],
        why: "contents changing places in one run: the split between new, moved and copied depends on the order files are resolved in")

    /// Indexes the photo folder into both (with `extra` options), expects the same exit status and
    /// the same summary (its duration and the database's name aside), and returns SQLite's counts;
    /// with `knownDifference`, the exact summary is compared as a known issue (see
    /// ``SplitDifference``).
    @discardableResult
    func index(
        _ extra: [String] = [], _ step: String, knownDifference: SplitDifference? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Int] {
        let outputs = try run(["index", folder.photos.path] + extra)
        #expect(outputs.sqlite.status == outputs.postgres.status, "\(step): \(outputs.sqlite.stderr) | \(outputs.postgres.stderr)", sourceLocation: sourceLocation)
        #expect(outputs.sqlite.stderr == outputs.postgres.stderr, "\(step): index stderr", sourceLocation: sourceLocation)
        let counts = Normalised.counts(ofIndexSummary: outputs.sqlite.stdout)
        try #require(!counts.isEmpty, "\(step): no summary in \(outputs.sqlite.stdout) \(outputs.sqlite.stderr)", sourceLocation: sourceLocation)
        let summaries = (Normalised.indexSummary(outputs.sqlite.stdout), Normalised.indexSummary(outputs.postgres.stdout))
        guard let knownDifference else {
            #expect(summaries.0 == summaries.1, "\(step): the index summaries", sourceLocation: sourceLocation)
            return counts
        }
        let merged = { (counts: [String: Int]) in
            var merged = counts.filter { !knownDifference.counts.contains($0.key) }
            merged[knownDifference.counts.sorted().joined(separator: " or ")] = knownDifference.counts.reduce(0) { $0 + (counts[$1] ?? 0) }
            return merged
        }
        #expect(
            merged(counts) == merged(Normalised.counts(ofIndexSummary: outputs.postgres.stdout)),
            "\(step): the index summaries, \(knownDifference.counts.sorted()) together", sourceLocation: sourceLocation)
        #expect(
            summaries.0.split(separator: "\n").dropFirst() == summaries.1.split(separator: "\n").dropFirst(),
            "\(step): the failures listed", sourceLocation: sourceLocation)
        // How the work is split, not what is stored: the rows are compared after the run.
        withKnownIssue(knownDifference.why, isIntermittent: true) {
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
