import ClassifyPeople
import ClassifySupport
import Foundation
import GRDB

/// People in a SQLite index (tables of ``PeopleSchema``); the logic is ``PeopleStore``'s.
extension SQLiteIndex {
    /// Usage: `let (current, grouped) = try index.peopleFingerprints()`
    public func peopleFingerprints() throws -> (current: PeopleFingerprint, grouped: PeopleFingerprint?) {
        try guardingStorage { try database.read { db in
            (try Self.currentPeopleFingerprint(db), try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [PeopleSchema.fingerprintKey]).map(PeopleFingerprint.init(text:)))
        } }
    }

    static func currentPeopleFingerprint(_ db: Database) throws -> PeopleFingerprint {
        let contents = try Row.fetchAll(db, sql: PeopleSchema.describedContents).map { row in
            (hash: row[0] as String, faces: row[1] as Int64, bytes: row[2] as Int64)
        }
        let corrections = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM people_corrections")!
        return PeopleFingerprint(contents: contents, corrections: (corrections[0], corrections[1]))
    }

    /// Usage: `let inputs = try index.peopleGroupingInputs()`
    public func peopleGroupingInputs() throws -> PeopleGroupingInputs {
        try guardingStorage { try database.read { db in
            var reader = PeopleGroupingInputs.FaceRowReader()
            let rows = try Row.fetchCursor(db, sql: PeopleSchema.describedFaces)
            while let row = try rows.next() { reader.add(hash: row[0], blob: row[1], faces: row[2]) }
            var previous: [FaceKey: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT content_hash, face_number, person_id FROM face_people WHERE person_id IS NOT NULL") {
                previous[FaceKey(contentHash: row[0], faceNumber: row[1])] = row[2]
            }
            let nextID = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [StoredPeopleGrouping.nextIDKey]) ?? 1
            return PeopleGroupingInputs(
                faces: reader.faces, corrections: try Self.peopleCorrections(db),
                previous: previous, nextID: nextID, fingerprint: try Self.currentPeopleFingerprint(db),
                snapshot: try Data.fetchOne(db, sql: "SELECT snapshot FROM people_state WHERE id = 1"))
        } }
    }

    static func peopleCorrections(_ db: Database) throws -> [PeopleCorrection] {
        try Row.fetchAll(db, sql: "SELECT \(PeopleSchema.correctionColumns) FROM people_corrections ORDER BY id").compactMap { row in
            StoredPeopleCorrection.correction(from: (0..<row.count).map { row[$0] as DatabaseValue })
        }
    }

    /// Usage: `let facts = try index.peopleCorrections()`
    public func peopleCorrections() throws -> [PeopleCorrection] {
        try guardingStorage { try database.read { try Self.peopleCorrections($0) } }
    }

    /// Usage: `let stored = try index.storePeopleGrouping(grouping)`
    public func storePeopleGrouping(_ grouping: StoredPeopleGrouping) throws -> Bool {
        try guardingStorage { try database.write { db in
            guard try Self.currentPeopleFingerprint(db) == grouping.fingerprint else { return false }
            try db.execute(sql: "DELETE FROM face_people")
            try db.execute(sql: "DELETE FROM people")
            let person = try db.makeStatement(sql: """
                INSERT INTO people(id, name, name_key, anchor_hash, anchor_number, face_count, photo_count) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for stored in grouping.people {
                try person.execute(arguments: [
                    stored.id, stored.name, stored.name.map(PeopleNames.key), stored.anchor.contentHash, stored.anchor.faceNumber,
                    stored.faces.count, stored.photoCount,
                ])
            }
            let face = try db.makeStatement(sql: "INSERT INTO face_people(content_hash, face_number, person_id, hidden) VALUES (?, ?, ?, ?)")
            for row in grouping.faceRows { try face.execute(arguments: [row.hash, row.number, row.person, row.hidden ? 1 : 0]) }
            let meta = try db.makeStatement(sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            try meta.execute(arguments: [PeopleSchema.fingerprintKey, grouping.fingerprint.text])
            try meta.execute(arguments: [StoredPeopleGrouping.nextIDKey, grouping.nextID])
            try db.execute(sql: "DELETE FROM people_state")
            if let snapshot = grouping.snapshot {
                try db.execute(sql: "INSERT INTO people_state(id, snapshot) VALUES (1, ?)", arguments: [snapshot])
            }
            CrashPoints.reach(.grouping)
            return true
        } }
    }

    /// Usage: `try index.recordPeopleCorrections([.notAFace(face)], source: .user)`
    public func recordPeopleCorrections(_ kinds: [PeopleCorrection.Kind], source: CorrectionSource) throws {
        try guardingStorage { try database.write { db in
            let statement = try db.makeStatement(sql: StoredPeopleCorrection.insert { _ in "?" })
            let now = Timestamps.microseconds(Date())
            for kind in kinds {
                let values = StoredPeopleCorrection.values(of: PeopleCorrection(kind, source: source, sequence: 0), madeAt: now)
                try statement.execute(arguments: StatementArguments(values))
            }
        } }
    }

    /// Usage: `for person in try index.people() { print(person.id) }`
    public func people() throws -> [PersonSummary] {
        try guardingStorage { try database.read { db in
            try Row.fetchAll(db, sql: PeopleSchema.peopleList).map { row in
                PersonSummary(
                    id: row[0], name: row[1], faceCount: row[2], photoCount: row[3],
                    anchor: FaceKey(contentHash: row[4], faceNumber: row[5]), samplePath: row[6])
            }
        } }
    }

    /// Usage: `let waiting = try index.unassignedFaces(limit: 100)`
    public func unassignedFaces(limit: Int) throws -> [UnassignedFace] {
        try guardingStorage { try database.read { db in
            try Row.fetchAll(db, sql: PeopleSchema.unassignedList + " LIMIT ?", arguments: [limit]).map { row in
                UnassignedFace(path: row[0], faceNumber: (row[1] as Int) + 1, side: UnassignedFace.storedSide(ofFace: row[1], in: row[2]))
            }
        } }
    }

    /// Usage: `let waiting = try index.unassignedFaceCount()`
    public func unassignedFaceCount() throws -> Int {
        try guardingStorage { try database.read { db in try Int.fetchOne(db, sql: PeopleSchema.unassignedCount) ?? 0 } }
    }

    /// Each stored face's person, by face number (from 0), for the image with content `hash`.
    static func facePeople(contentHash hash: String, _ db: Database) throws -> [Int: FacePerson] {
        var found: [Int: FacePerson] = [:]
        for row in try Row.fetchAll(db, sql: PeopleSchema.facePeopleOfContent("?"), arguments: [hash]) {
            found[row[0]] = FacePerson(id: row[1], name: row[2])
        }
        return found
    }
}

extension SQLiteIndex {
    /// Usage: `let faces = try index.faces(ofPerson: 7)`
    public func faces(ofPerson id: Int64) throws -> [FaceKey] {
        try guardingStorage { try database.read { db in
            try Row.fetchAll(db, sql: PeopleSchema.facesOfPerson("?"), arguments: [id]).map { FaceKey(contentHash: $0[0], faceNumber: $0[1]) }.sorted()
        } }
    }
}
