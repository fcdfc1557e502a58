import Foundation
import GRDB

extension SQLiteIndex {
    /// Adds a label to the images at `paths`: searched, shown and exported with confidence 1 from
    /// now on, through re-indexing, moves and new models (the correction is keyed by content).
    ///
    /// `name` is a label's identifier, name or synonym as in search; any other name becomes a user
    /// label (`grandma`), searchable by its exact name and by prefix. Paths that are not indexed,
    /// or whose classification failed, get a failed outcome; the others are corrected in one transaction.
    ///
    /// ```swift
    /// let report = try index.addLabel("golden retriever", to: ["/photos/rex.jpg"])
    /// ```
    public func addLabel(_ name: String, to paths: [String]) throws -> CorrectionReport {
        try correct(name, paths: paths, kind: .added)
    }

    /// Removes a label, and every label below it, from the images at `paths`; a label above it stays
    /// only where another of its children still holds it. Searches no longer find the images by it.
    ///
    /// ```swift
    /// let report = try index.removeLabel("dog", from: ["/photos/wolf.jpg"])
    /// ```
    public func removeLabel(_ name: String, from paths: [String]) throws -> CorrectionReport {
        try correct(name, paths: paths, kind: .removed)
    }

    /// Takes back the correction of a label on the images at `paths`: they get what the model gave them.
    ///
    /// ```swift
    /// let report = try index.clearCorrection(of: "dog", on: ["/photos/wolf.jpg"])
    /// ```
    public func clearCorrection(of name: String, on paths: [String]) throws -> CorrectionReport {
        try correct(name, paths: paths, kind: nil)
    }

    private func correct(_ name: String, paths: [String], kind: CorrectionKind?) throws -> CorrectionReport {
        try guardingStorage { try database.write { db in
            var taxonomy = try self.taxonomy(db)
            let label = try Corrections.label(named: name, taxonomy: taxonomy, db)
            if kind == .removed && taxonomy.idByIdentifier[label.identifier] == nil {
                throw TagIndexError.invalidInput("no label is named '\(label.identifier)'")
            }
            // Removing a label also takes back the additions of labels below it on the same images.
            let below = taxonomy.idByIdentifier[label.identifier].map {
                taxonomy.descendantsOrSelf($0).compactMap { taxonomy.labels[$0]?.identifier }
            } ?? [label.identifier]
            var writer = BatchWriter(db: db)
            var outcomes: [CorrectionOutcome] = []
            var corrected: Set<String> = []
            let now = Timestamps.microseconds(Date())
            for path in paths {
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT content_hash, error_stage FROM images WHERE path = ?", arguments: [path])
                else {
                    outcomes.append(CorrectionOutcome(path: path, failure: "not in the index; index its folder first"))
                    continue
                }
                let stage: String? = row[1]
                guard stage == nil, let hash = row[0] as String? else {
                    outcomes.append(CorrectionOutcome(
                        path: path, failure: "its classification failed (\(stage ?? "read")); only classified images take corrections"))
                    continue
                }
                switch kind {
                case .added?, .removed?:
                    try db.execute(
                        sql: """
                            INSERT INTO corrections(content_hash, label, added, user_label, corrected_at) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT(content_hash, label) DO UPDATE SET
                                added = excluded.added, user_label = excluded.user_label, corrected_at = excluded.corrected_at
                            """,
                        arguments: [hash, label.identifier, kind == .added, label.isUserLabel, now])
                    if kind == .removed {
                        try db.execute(
                            sql: """
                                DELETE FROM corrections WHERE content_hash = ? AND added = 1 AND label <> ?
                                  AND label IN (SELECT value FROM json_each(?))
                                """,
                            arguments: [hash, label.identifier, String(decoding: try JSONEncoder().encode(below), as: UTF8.self)])
                    }
                case nil:
                    try db.execute(
                        sql: "DELETE FROM corrections WHERE content_hash = ? AND label = ?", arguments: [hash, label.identifier])
                }
                if corrected.insert(hash).inserted {
                    try Corrections.reapply(contentHash: hash, writer: &writer, taxonomy: &taxonomy, index: self)
                }
                outcomes.append(CorrectionOutcome(path: path, failure: nil))
            }
            try writer.flushCounts()
            return CorrectionReport(label: label, outcomes: outcomes)
        } }
    }

    /// Every stored correction, newest first (then by label).
    ///
    /// ```swift
    /// for correction in try index.corrections() { print(correction.kind, correction.displayName, correction.paths) }
    /// ```
    public func corrections() throws -> [LabelCorrection] {
        try guardingStorage { try database.read { db in
            try listCorrections(db, where: "", arguments: [])
        } }
    }

    /// The corrections of the content of the indexed file at `path` (empty when none or not indexed).
    ///
    /// ```swift
    /// let corrections = try index.corrections(forPath: "/photos/rex.jpg")
    /// ```
    public func corrections(forPath path: String) throws -> [LabelCorrection] {
        try guardingStorage { try database.read { db in
            try listCorrections(
                db, where: "WHERE c.content_hash = (SELECT content_hash FROM images WHERE path = ?)", arguments: [path])
        } }
    }

    private func listCorrections(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [LabelCorrection] {
        let taxonomy = try taxonomy(db)
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT c.content_hash, c.label, c.added, c.user_label, c.corrected_at,
                       (SELECT json_group_array(path) FROM (SELECT path FROM images WHERE content_hash = c.content_hash ORDER BY path))
                FROM corrections AS c \(condition)
                ORDER BY c.corrected_at DESC, c.label, c.content_hash
                """,
            arguments: arguments)
        return try rows.map { row in
            let identifier: String = row[1]
            let paths = try JSONDecoder().decode([String].self, from: Data((row[5] as String? ?? "[]").utf8))
            return LabelCorrection(
                contentHash: row[0], identifier: identifier,
                displayName: taxonomy.idByIdentifier[identifier].flatMap { taxonomy.labels[$0]?.displayName } ?? identifier,
                kind: row[2] ? .added : .removed, isUserLabel: row[3], date: Timestamps.date(row[4]), paths: paths)
        }
    }
}
