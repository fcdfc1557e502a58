import TagIndex
import Foundation
import PostgresNIO

/// Corrections on PostgreSQL, as on SQLite (see `SQLiteIndex+Corrections.swift`): keyed by content,
/// applied to the stored labels in the same transaction that records them, so search, show and
/// export see the corrected labels; running the same correction again changes nothing more.
/// Index runs may write at the same time: see ``PostgresBatchWriter/correctionsLock``.
extension PostgresIndex {
    /// Adds a label to the images at `paths`, as ``SQLiteIndex/addLabel(_:to:)``.
    ///
    /// Usage: `let report = try await index.addLabel("grandma", to: ["/photos/a.jpg"])`
    public func addLabel(_ name: String, to paths: [String]) async throws -> CorrectionReport {
        try await correct(name, paths: paths, kind: .added)
    }

    /// Removes a label, and every label below it, from the images at `paths`, as ``SQLiteIndex/removeLabel(_:from:)``.
    ///
    /// Usage: `let report = try await index.removeLabel("dog", from: ["/photos/wolf.jpg"])`
    public func removeLabel(_ name: String, from paths: [String]) async throws -> CorrectionReport {
        try await correct(name, paths: paths, kind: .removed)
    }

    /// Takes back the correction of a label on the images at `paths`, as ``SQLiteIndex/clearCorrection(of:on:)``.
    ///
    /// Usage: `let report = try await index.clearCorrection(of: "dog", on: ["/photos/wolf.jpg"])`
    public func clearCorrection(of name: String, on paths: [String]) async throws -> CorrectionReport {
        try await correct(name, paths: paths, kind: nil)
    }

    /// Every stored correction, newest first (then by label), as ``SQLiteIndex/corrections()``.
    ///
    /// Usage: `for correction in try await index.corrections() { print(correction.displayName) }`
    public func corrections() async throws -> [LabelCorrection] {
        try await listCorrections(where: "", PostgresBindings())
    }

    /// The corrections of the content of one file (as ``SQLiteIndex/corrections(forPath:)``).
    ///
    /// Usage: `let corrections = try await index.corrections(forPath: path)`
    public func corrections(forPath path: String) async throws -> [LabelCorrection] {
        var binds = PostgresBindings()
        binds.append(path)
        return try await listCorrections(where: "WHERE c.content_hash = (SELECT content_hash FROM images WHERE path = $1)", binds)
    }

    private func listCorrections(where condition: String, _ binds: PostgresBindings) async throws -> [LabelCorrection] {
        let rows = try await session.all("""
            SELECT c.content_hash, c.label, c.added, c.user_label, c.corrected_at,
                   ARRAY(SELECT i.path FROM images AS i WHERE i.content_hash = c.content_hash ORDER BY i.path COLLATE "C")
            FROM corrections AS c \(condition)
            ORDER BY c.corrected_at DESC, c.label COLLATE "C", c.content_hash COLLATE "C"
            """, binds) { try $0.decode((String, String, Bool, Bool, Int64, [String]).self) }
        guard !rows.isEmpty else { return [] }
        let taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
        return rows.map { hash, identifier, added, userLabel, date, paths in
            LabelCorrection(
                contentHash: hash, identifier: identifier,
                displayName: taxonomy.idByIdentifier[identifier].flatMap { taxonomy.labels[$0]?.displayName } ?? identifier,
                kind: added ? .added : .removed, isUserLabel: userLabel, date: Timestamps.date(date), paths: paths)
        }
    }

    /// Records (or takes back, for a nil `kind`) a correction on `paths` and applies it, in one
    /// transaction.
    private func correct(_ name: String, paths: [String], kind: CorrectionKind?) async throws -> CorrectionReport {
        // A writer that locked an image row before taking the corrections lock can deadlock with
        // a correction waiting for that row; the server rolls one back, and the correction runs again.
        var attempt = 1
        while true {
            do {
                let report = try await correctOnce(name, paths: paths, kind: kind)
                // The corrected images' blocks into the postings boolean searches read.
                try await PostgresPostings.compact(session)
                return report
            } catch where attempt < 5 && PostgresBackendError.recovery(for: error) == .retryTransaction {
                attempt += 1
            }
        }
    }

    private func correctOnce(_ name: String, paths: [String], kind: CorrectionKind?) async throws -> CorrectionReport {
        try await session.transaction { session in
            var key = PostgresBindings()
            key.append(PostgresBatchWriter.correctionsLock)
            try await session.execute("SELECT pg_advisory_xact_lock($1)", key)
            let taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
            let userLabels = try await session.all("SELECT DISTINCT label FROM corrections WHERE user_label") { try $0.decode(String.self) }
            let label = try Corrections.label(named: name, taxonomy: taxonomy, userLabels: Set(userLabels))
            if kind == .removed && taxonomy.idByIdentifier[label.identifier] == nil {
                throw TagIndexError.invalidInput("no label is named '\(label.identifier)'")
            }
            // Removing a label also takes back the additions of labels below it on the same images.
            let below = taxonomy.idByIdentifier[label.identifier].map {
                taxonomy.descendantsOrSelf($0).compactMap { taxonomy.labels[$0]?.identifier }
            } ?? [label.identifier]
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            var outcomes: [CorrectionOutcome] = []
            var corrected: Set<String> = []
            let now = Timestamps.microseconds(Date())
            for path in paths {
                var pathBinds = PostgresBindings()
                pathBinds.append(path)
                guard let (hash, stage) = try await session.all(
                    "SELECT content_hash, error_stage FROM images WHERE path = $1", pathBinds, { try $0.decode((String?, String?).self) }
                ).first else {
                    outcomes.append(CorrectionOutcome(path: path, failure: "not in the index; index its folder first"))
                    continue
                }
                guard stage == nil, let hash else {
                    outcomes.append(CorrectionOutcome(
                        path: path, failure: "its classification failed (\(stage ?? "read")); only classified images take corrections"))
                    continue
                }
                var binds = PostgresBindings()
                binds.append(hash)
                binds.append(label.identifier)
                switch kind {
                case .added?, .removed?:
                    var upsert = binds
                    upsert.append(kind == .added)
                    upsert.append(label.isUserLabel)
                    upsert.append(now)
                    try await session.execute("""
                        INSERT INTO corrections(content_hash, label, added, user_label, corrected_at) VALUES ($1, $2, $3, $4, $5)
                        ON CONFLICT(content_hash, label) DO UPDATE SET
                            added = excluded.added, user_label = excluded.user_label, corrected_at = excluded.corrected_at
                        """, upsert)
                    if kind == .removed {
                        binds.append(below)
                        try await session.execute(
                            "DELETE FROM corrections WHERE content_hash = $1 AND added AND label <> $2 AND label = ANY($3::text[])", binds)
                    }
                case nil:
                    try await session.execute("DELETE FROM corrections WHERE content_hash = $1 AND label = $2", binds)
                }
                if corrected.insert(hash).inserted {
                    try await writer.reapplyCorrections(contentHash: hash)
                }
                outcomes.append(CorrectionOutcome(path: path, failure: nil))
            }
            try await writer.flushCounts()
            return CorrectionReport(label: label, outcomes: outcomes)
        }
    }
}
