/// The stored people (migration v9, both backends, in the SQL they share):
///
/// - `people_corrections(id, kind, content_hash, face_number, other_hash, other_number, name,
///   source, priority, made_at)`: the facts people stated (`people name`, `merge`, `move`, `not`,
///   `hide`) or that were imported (names in XMP face regions). Keyed by faces (content hash and
///   face number), never by person ids, so they survive re-indexing, regrouping and new models;
///   the row id is the fact's sequence (later wins a tie of priority).
/// - `people(id, name, name_key, anchor_hash, anchor_number, face_count, photo_count)`: the people
///   the last grouping made. Ids are small integers that a person keeps across regroupings (see
///   ``StoredPeopleGrouping``); `name_key` is the name folded for search.
/// - `face_people(content_hash, face_number, person_id, hidden)`: every grouped face: its person,
///   none (waiting, unassigned) or hidden ("not a face").
/// - `people_state(id, snapshot)`: one row, the grouper's state after the last grouping
///   (`GroupingSnapshot`), so the next one measures only the pairs with new faces.
/// - `meta` key `people_grouped`: the fingerprint of the faces and facts the stored grouping was
///   made from (see ``PeopleFingerprint``); a different one means people are out of date.
///
/// The grouping tables are derived: rewritten whole, in one transaction, by each regrouping.
package enum PeopleSchema {
    /// The tables; `integer` and `identity` are the backend's spelling of a 64-bit integer and of
    /// a generated primary key.
    ///
    /// Usage: `for sql in PeopleSchema.createTables(integer: "INTEGER", identity: "INTEGER PRIMARY KEY AUTOINCREMENT", blob: "BLOB") { ... }`
    package static func createTables(integer: String, identity: String, blob: String) -> [String] {
        [
            """
            CREATE TABLE people_corrections(
                id \(identity),
                kind TEXT NOT NULL,
                content_hash TEXT NOT NULL,
                face_number \(integer) NOT NULL,
                other_hash TEXT,
                other_number \(integer),
                name TEXT,
                source TEXT NOT NULL,
                priority \(integer) NOT NULL,
                made_at \(integer) NOT NULL)
            """,
            """
            CREATE TABLE people(
                id \(integer) PRIMARY KEY,
                name TEXT,
                name_key TEXT,
                anchor_hash TEXT NOT NULL,
                anchor_number \(integer) NOT NULL,
                face_count \(integer) NOT NULL,
                photo_count \(integer) NOT NULL)
            """,
            """
            CREATE TABLE face_people(
                content_hash TEXT NOT NULL,
                face_number \(integer) NOT NULL,
                person_id \(integer),
                hidden \(integer) NOT NULL,
                PRIMARY KEY(content_hash, face_number))
            """,
            "CREATE INDEX face_people_by_person ON face_people(person_id)",
            "CREATE TABLE people_state(id \(integer) PRIMARY KEY, snapshot \(blob) NOT NULL)",
        ]
    }

    /// The `meta` key of the stored grouping's fingerprint.
    package static let fingerprintKey = "people_grouped"

    /// Rows of (content hash, face count, descriptor bytes) of every classified image whose faces
    /// have descriptors, one per content: what the fingerprint is made of.
    package static let describedContents = """
        SELECT DISTINCT i.content_hash, f.face_count, LENGTH(f.descriptors)
        FROM image_faces AS f JOIN images AS i ON i.id = f.image_id
        WHERE f.descriptors IS NOT NULL AND i.error_stage IS NULL AND i.content_hash IS NOT NULL
        """

    /// Rows of (content hash, descriptors) of the same images, by hash: the faces to group (twins,
    /// files of the same content, come one after the other and hold the same descriptors).
    package static let describedFaces = """
        SELECT i.content_hash, f.descriptors, f.faces
        FROM image_faces AS f JOIN images AS i ON i.id = f.image_id
        WHERE f.descriptors IS NOT NULL AND i.error_stage IS NULL AND i.content_hash IS NOT NULL
        ORDER BY i.content_hash
        """

    /// The columns of a stored correction, in the order ``StoredPeopleCorrection`` reads them.
    package static let correctionColumns =
        "id, kind, content_hash, face_number, other_hash, other_number, name, source, priority"

    /// The people with their sample photo (the anchor face's first path), named first, then by faces.
    package static let peopleList = """
        SELECT p.id, p.name, p.face_count, p.photo_count, p.anchor_hash, p.anchor_number,
               (SELECT MIN(i.path) FROM images AS i WHERE i.content_hash = p.anchor_hash)
        FROM people AS p
        ORDER BY p.name IS NULL, p.face_count DESC, p.id
        """
}

extension PeopleSchema {
    /// Faces waiting for a person with a path each and the stored faces of their content (for the
    /// box's size), by path then face number (bind a LIMIT after).
    package static let unassignedList = """
        SELECT MIN(i.path) AS path, fp.face_number,
               (SELECT f.faces FROM image_faces AS f JOIN images AS j ON j.id = f.image_id
                WHERE j.content_hash = fp.content_hash AND f.faces IS NOT NULL LIMIT 1) AS faces
        FROM face_people AS fp JOIN images AS i ON i.content_hash = fp.content_hash
        WHERE fp.person_id IS NULL AND fp.hidden = 0
        GROUP BY fp.content_hash, fp.face_number
        ORDER BY path, fp.face_number
        """

    /// How many faces `unassignedList` lists without a limit: those of a content some image has.
    package static let unassignedCount = """
        SELECT COUNT(*) FROM face_people AS fp
        WHERE fp.person_id IS NULL AND fp.hidden = 0
          AND EXISTS (SELECT 1 FROM images AS i WHERE i.content_hash = fp.content_hash)
        """

    /// (face number, person id, name) of the faces of one content (`hash` its placeholder).
    package static func facePeopleOfContent(_ hash: String) -> String {
        """
        SELECT fp.face_number, p.id, p.name FROM face_people AS fp JOIN people AS p ON p.id = fp.person_id
        WHERE fp.content_hash = \(hash)
        """
    }
}

extension PeopleSchema {
    /// (content hash, face number, person id, name) of the faces in a person of several contents
    /// (`hashes` a PostgreSQL array placeholder).
    package static func facePeopleOfContents(_ hashes: String) -> String {
        """
        SELECT fp.content_hash, fp.face_number, p.id, p.name FROM face_people AS fp JOIN people AS p ON p.id = fp.person_id
        WHERE fp.content_hash = ANY(\(hashes))
        """
    }

    /// (content hash, face number) of one person's faces (`id` its placeholder).
    package static func facesOfPerson(_ id: String) -> String {
        "SELECT content_hash, face_number FROM face_people WHERE person_id = \(id)"
    }
}
