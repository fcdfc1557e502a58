import Foundation
import ClassifySupport
import GRDB

/// The versioned schema of a TagIndex database.
///
/// Each migration runs in its own transaction (GRDB `DatabaseMigrator`). A
/// database that lists a migration this version does not know was written by a
/// newer SQLiteIndex: ``SQLiteIndex`` refuses it before touching the file.
///
/// Tables (v4):
/// - `meta(key, value)`: taxonomy generation, model and fingerprint; the search vocabulary
///   (`vocabulary`: JSON, see ``VocabularyWord``).
/// - `models(id, name, version)`: model stamps, unique by (name, version).
/// - `images(id, path UNIQUE, size, mtime, content_hash, width, height, model_id,
///   indexed_at, error_stage, error_reason, top_confidence, feature_print, dominant_colors)`.
///   `path` is TEXT in `RawPath` form: the file's UTF-8 name as it is, a byte that is not UTF-8
///   as a scalar U+10FF80...U+10FFFF, so any name the file system gives is stored without loss
///   and valid UTF-8 paths written by earlier versions read the same (no migration).
///   `top_confidence` is the highest stored confidence (NULL when none), so
///   "untagged" needs no join. `feature_print` is fp16 (see ``FeaturePrint``);
///   `dominant_colors` is 4 bytes per color (see ``IndexedColor``).
/// - `labels(id, identifier UNIQUE, display_name, synonyms JSON, image_count, curve_id)`;
///   `label_parents(label_id, parent_id)`; `curves(id, points UNIQUE)`, each precision/recall
///   curve once (see `PackedCurve`; labels that share the pooled curve share its row);
///   `label_text` (FTS5 over identifier, display name and synonyms, rowid = label id).
/// - `observations(label_id, image_id, best, confidence)` WITHOUT ROWID, primary key
///   (label_id, image_id), plus index `observations_by_rank(label_id, best)` which
///   covers (label_id, best, image_id). `confidence` is what the classifier gave
///   the label (NULL when below the floor); `best` is the highest confidence of the
///   label or any label below it in the taxonomy, so a term matches its whole
///   subtree with one index range. Both are quantized (see `StorageFormat`).
/// - `label_postings(label_id, block, entries)`: each label's (image, best) in
///   compact sorted blocks of 4,096 image ids (see `Postings`), scanned by
///   boolean searches and facets.
/// - `image_labels(image_id, packed)`: every stored (label id, best) of an image
///   packed in one blob (see `PackedLabels`), read by facets and deletions instead of a second index
///   on observations.
/// - `corrections(content_hash, label, added, user_label, corrected_at)` (v4): labels a person added
///   or removed, keyed by the file's content hash (not its path or image id) so they follow the file
///   through moves, touches and re-classification by a new model (see `Corrections/`).
/// - `model_labels(image_id, packed)` (v4): for a corrected image only, what the model gave it
///   (`PackedLabels`, best = confidence), so the corrected set is always recomputed from the model's
///   output and the corrections, never from an earlier corrected set.
/// - `image_faces(image_id, face_count, faces)` (v5): the faces found in an image (see
///   ``IndexedFace`` and `Faces/FaceStorage.swift`); no row when faces were not looked for.
/// - `image_metadata(image_id, taken_local, ..., place_id, country_code, admin1_code)` (v6): date
///   taken, position, camera and place (see ``IndexedMetadata`` and `Metadata/MetadataStorage.swift`);
///   no row when the metadata was not read.
/// - v7: an index of the classified images' modification times (``indexedByModificationTime``).
/// - v8: `image_faces.descriptors`, each face's descriptor for recognising people (see
///   ``IndexedFace``); NULL while recognition has not run on the image.
/// - v9: people: corrections about faces, the stored grouping (see ``PeopleSchema``).
/// - v10: `image_faces.thorough`, whether MTCNN looked for the image's faces too.
package enum Schema {
    /// The statement that writes one image row, replacing what its path held, in either dialect:
    /// `placeholders` are the 13 values' markers (`?` for SQLite, `$1`... for PostgreSQL), in
    /// the order path, size, mtime, content_hash, width, height, model_id, indexed_at,
    /// error_stage, error_reason, top_confidence, feature_print, dominant_colors. With `source`
    /// (PostgreSQL: `unnest(...) AS u(...)`), the placeholders are expressions over its rows
    /// and one statement writes them all.
    package static func imageUpsert(placeholders: [String], from source: String? = nil, returning: String) -> String {
        precondition(placeholders.count == 13, "an image row has 13 written columns")
        let values = source.map { "SELECT \(placeholders.joined(separator: ", ")) FROM \($0)" } ?? "VALUES (\(placeholders.joined(separator: ", ")))"
        return """
            INSERT INTO images(path, size, mtime, content_hash, width, height, model_id, indexed_at,
                               error_stage, error_reason, top_confidence, feature_print, dominant_colors)
            \(values)
            ON CONFLICT(path) DO UPDATE SET
                size = excluded.size, mtime = excluded.mtime, content_hash = excluded.content_hash,
                width = excluded.width, height = excluded.height, model_id = excluded.model_id,
                indexed_at = excluded.indexed_at, error_stage = excluded.error_stage,
                error_reason = excluded.error_reason, top_confidence = excluded.top_confidence,
                feature_print = excluded.feature_print, dominant_colors = excluded.dominant_colors
            RETURNING \(returning)
            """
    }

    /// The classified images' modification times (v7, both databases): the gallery's timeline
    /// counts photos per month over them without reading the image rows (a row holds its feature
    /// print: reading 100,000 of them is most of the time).
    package static let indexedByModificationTime = "CREATE INDEX images_indexed_by_mtime ON images(mtime) WHERE error_stage IS NULL"

    /// Identifiers of the migrations, oldest first.
    /// v8 on both backends: the faces' descriptors beside their boxes (`BLOB` is `BYTEA` on
    /// PostgreSQL, which the dialect's schema spells).
    package static func faceDescriptorsColumn(blob: String) -> String {
        "ALTER TABLE image_faces ADD COLUMN descriptors \(blob)"
    }

    /// v10 on both backends: whether the thorough detector looked at an image's faces (see
    /// ``FacesFound/thorough``); 0 for faces stored before.
    package static let thoroughFacesColumn = "ALTER TABLE image_faces ADD COLUMN thorough INTEGER NOT NULL DEFAULT 0"

    static let migrationIdentifiers = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"]

    /// The migrations applied to `db`, read so that another process creating the file at the
    /// same moment cannot make the read fail.
    ///
    /// GRDB's `appliedIdentifiers` selects first and looks for the table only when the select
    /// fails, outside a transaction: when another process creates the table between the two, it
    /// throws "no such table". The table is never dropped, so looking first is safe: absent
    /// means nothing applied as of that moment.
    ///
    /// Usage: `let applied = try Schema.appliedMigrations(db)`
    static func appliedMigrations(_ db: Database) throws -> Set<String> {
        let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations')") ?? false
        guard exists else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// The covering index that orders a label's images by confidence.
    package static let createRankIndex =
        "CREATE INDEX observations_by_rank ON observations(label_id, best)"

    /// SQLite's name for the primary-key index of `observations`, used with
    /// `INDEXED BY` to scan a label's images in image order.
    static let primaryKeyIndex = "sqlite_autoindex_observations_1"

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Every migration ends at a crash point, so the crash-safety tests can kill a run while
        // it creates or upgrades the schema (inside the migration's transaction).
        func register(_ identifier: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
            migrator.registerMigration(identifier) { db in
                try migrate(db)
                CrashPoints.reach(.schema)
            }
        }
        register("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID;
                CREATE TABLE models(
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    version TEXT NOT NULL,
                    UNIQUE(name, version));
                CREATE TABLE images(
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    size INTEGER NOT NULL,
                    mtime INTEGER NOT NULL,
                    content_hash TEXT,
                    width INTEGER,
                    height INTEGER,
                    model_id INTEGER REFERENCES models(id),
                    indexed_at INTEGER NOT NULL,
                    error_stage TEXT,
                    error_reason TEXT,
                    top_confidence INTEGER,
                    feature_print BLOB);
                CREATE INDEX images_by_hash ON images(content_hash) WHERE content_hash IS NOT NULL;
                CREATE INDEX images_by_mtime ON images(mtime);
                CREATE TABLE labels(
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    synonyms TEXT NOT NULL DEFAULT '[]',
                    image_count INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE label_parents(
                    label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
                    parent_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
                    PRIMARY KEY(label_id, parent_id)) WITHOUT ROWID;
                CREATE TABLE observations(
                    label_id INTEGER NOT NULL REFERENCES labels(id),
                    image_id INTEGER NOT NULL,
                    best INTEGER NOT NULL,
                    confidence INTEGER,
                    PRIMARY KEY(label_id, image_id)) WITHOUT ROWID;
                CREATE TABLE image_labels(
                    image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
                    packed BLOB NOT NULL);
                """)
            try db.execute(sql: createRankIndex)
        }
        register("v2") { db in
            // Search by free text and calibrated filters, room for dominant colors.
            try db.execute(sql: """
                ALTER TABLE images ADD COLUMN dominant_colors BLOB;
                CREATE TABLE label_curves(
                    label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
                    threshold REAL NOT NULL,
                    precision REAL NOT NULL,
                    recall REAL NOT NULL,
                    PRIMARY KEY(label_id, threshold)) WITHOUT ROWID;
                CREATE VIRTUAL TABLE label_text USING fts5(
                    identifier, display_name, synonyms,
                    tokenize = "unicode61 remove_diacritics 2 separators '_'");
                INSERT INTO label_text(rowid, identifier, display_name, synonyms)
                    SELECT id, identifier, display_name, synonyms FROM labels;
                CREATE TABLE label_postings(
                    label_id INTEGER NOT NULL,
                    block INTEGER NOT NULL,
                    entries BLOB NOT NULL,
                    PRIMARY KEY(label_id, block)) WITHOUT ROWID;
                """)
            try Postings.rebuild(db)
        }
        register("v3") { db in
            // Curves once each instead of a row per label and point (v2 stored the pooled curve
            // again for every label: ~90,000 rows written by the first index of a database).
            try db.execute(sql: """
                CREATE TABLE curves(id INTEGER PRIMARY KEY, points BLOB NOT NULL UNIQUE);
                ALTER TABLE labels ADD COLUMN curve_id INTEGER REFERENCES curves(id);
                """)
            var points: [Int64: [CurvePoint]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT label_id, threshold, precision, recall FROM label_curves")
            while let row = try rows.next() {
                points[row[0], default: []].append(CurvePoint(threshold: row[1], precision: row[2], recall: row[3]))
            }
            var curveIDs: [Data: Int64] = [:]
            for (labelID, curve) in points { try storeCurve(curve, forLabel: labelID, curveIDs: &curveIDs, db) }
            try db.execute(sql: "DROP TABLE label_curves")
        }
        register("v4") { db in
            // Corrections by people: stored apart from what the model produced.
            try db.execute(sql: """
                CREATE TABLE corrections(
                    content_hash TEXT NOT NULL,
                    label TEXT NOT NULL,
                    added INTEGER NOT NULL,
                    user_label INTEGER NOT NULL DEFAULT 0,
                    corrected_at INTEGER NOT NULL,
                    PRIMARY KEY(content_hash, label)) WITHOUT ROWID;
                CREATE TABLE model_labels(
                    image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
                    packed BLOB NOT NULL);
                """)
        }
        register("v5") { db in
            // Faces found by the detector, per image.
            try db.execute(sql: """
                CREATE TABLE image_faces(
                    image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
                    face_count INTEGER NOT NULL,
                    faces BLOB NOT NULL);
                CREATE INDEX image_faces_by_count ON image_faces(face_count);
                """)
        }
        register("v6") { db in
            // Dates taken, positions, cameras and places, per image (see MetadataStorage).
            for statement in MetadataStorage.createTable(integer: "INTEGER", real: "REAL") { try db.execute(sql: statement) }
        }
        register("v7") { db in
            try db.execute(sql: Self.indexedByModificationTime)
        }
        register("v8") { db in
            try db.execute(sql: Self.faceDescriptorsColumn(blob: "BLOB"))
        }
        register("v9") { db in
            for statement in PeopleSchema.createTables(integer: "INTEGER", identity: "INTEGER PRIMARY KEY AUTOINCREMENT", blob: "BLOB") {
                try db.execute(sql: statement)
            }
        }
        register("v10") { db in
            try db.execute(sql: Self.thoroughFacesColumn)
        }
        return migrator
    }

    /// Points label `labelID` at `curve`, storing the curve unless an identical one is stored.
    /// `curveIDs` remembers the ids of the blobs stored so far in this transaction, so each
    /// distinct curve is written and looked up once (uncached statements: see BatchWriter.upsert).
    static func storeCurve(_ curve: [CurvePoint], forLabel labelID: Int64, curveIDs: inout [Data: Int64], _ db: Database) throws {
        // Data keys: hashing a ~1.5 KB [UInt8] blob byte by byte for each of ~1,000 labels was a
        // visible part of installing a taxonomy.
        let blob = Data(PackedCurve.pack(curve))
        let curveID: Int64
        if let known = curveIDs[blob] {
            curveID = known
        } else {
            try db.execute(sql: "INSERT INTO curves(points) VALUES (?) ON CONFLICT(points) DO NOTHING", arguments: [blob])
            curveID = try Int64.fetchOne(db, sql: "SELECT id FROM curves WHERE points = ?", arguments: [blob])!
            curveIDs[blob] = curveID
        }
        try db.cachedStatement(sql: "UPDATE labels SET curve_id = ? WHERE id = ?").execute(arguments: [curveID, labelID])
    }
}
