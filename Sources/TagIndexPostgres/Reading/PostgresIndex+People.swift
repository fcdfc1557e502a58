import ClassifyPeople
import ClassifySupport
import Foundation
import GRDB
import PostgresNIO
import TagIndex

/// People on PostgreSQL (tables of `PeopleSchema`, shared with SQLite); the logic is `PeopleStore`'s.
/// Groupings are stored under an advisory lock, so indexers and people correcting at once never
/// interleave two groupings' rows.
extension PostgresIndex {
    /// The advisory lock key of storing a grouping.
    static let peopleLock: Int64 = PostgresSchema.migrationLock + 3

    /// Usage: `let (current, grouped) = try await index.peopleFingerprints()`
    public func peopleFingerprints() async throws -> (current: PeopleFingerprint, grouped: PeopleFingerprint?) {
        try await session.transaction(isolation: .repeatableRead) { session in
            var key = PostgresBindings()
            key.append(PeopleSchema.fingerprintKey)
            let grouped = try await session.all("SELECT value FROM meta WHERE key = $1", key) { try $0.decode(String.self) }.first
            return (try await Self.currentPeopleFingerprint(session), grouped.map(PeopleFingerprint.init(text:)))
        }
    }

    static func currentPeopleFingerprint(_ session: PostgresSession) async throws -> PeopleFingerprint {
        let contents = try await session.all(PeopleSchema.describedContents) { row in
            let values = try row.map(Self.databaseValue)
            return (hash: String.fromDatabaseValue(values[0]) ?? "", faces: Int64.fromDatabaseValue(values[1]) ?? 0, bytes: Int64.fromDatabaseValue(values[2]) ?? 0)
        }
        let corrections: [(Int64, Int64)] = try await session.all("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM people_corrections") {
            try $0.decode((Int64, Int64).self)
        }
        return PeopleFingerprint(contents: contents, corrections: (corrections.first?.0 ?? 0, corrections.first?.1 ?? 0))
    }

    /// Usage: `let inputs = try await index.peopleGroupingInputs()`
    public func peopleGroupingInputs() async throws -> PeopleGroupingInputs {
        try await session.transaction(isolation: .repeatableRead) { session in
            let rows = try await session.all(PeopleSchema.describedFaces) { row in
                let (hash, blob, faces) = try row.decode((String, ByteBuffer, ByteBuffer).self)
                return (hash: hash, blob: Data(blob.readableBytesView), faces: Data(faces.readableBytesView))
            }
            var previous: [FaceKey: Int64] = [:]
            let assigned = try await session.all(
                "SELECT content_hash, face_number, person_id FROM face_people WHERE person_id IS NOT NULL", PostgresBindings()
            ) { try $0.decode((String, Int64, Int64).self) }
            for (hash, number, person) in assigned {
                previous[FaceKey(contentHash: hash, faceNumber: Int(number))] = person
            }
            var key = PostgresBindings()
            key.append(StoredPeopleGrouping.nextIDKey)
            let nextID = try await session.all("SELECT value FROM meta WHERE key = $1", key) { try $0.decode(String.self) }.first.flatMap { Int64($0) } ?? 1
            let snapshot = try await session.all("SELECT snapshot FROM people_state WHERE id = 1") { row in
                Data(try row.decode(ByteBuffer.self).readableBytesView)
            }.first
            return PeopleGroupingInputs(
                faces: PeopleGroupingInputs.faces(fromRows: rows), corrections: try await Self.peopleCorrections(session),
                previous: previous, nextID: nextID, fingerprint: try await Self.currentPeopleFingerprint(session), snapshot: snapshot)
        }
    }

    static func peopleCorrections(_ session: PostgresSession) async throws -> [PeopleCorrection] {
        try await session.all("SELECT \(PeopleSchema.correctionColumns) FROM people_corrections ORDER BY id") { row in
            try row.map(Self.databaseValue)
        }.compactMap(StoredPeopleCorrection.correction(from:))
    }

    /// Usage: `let facts = try await index.peopleCorrections()`
    public func peopleCorrections() async throws -> [PeopleCorrection] {
        try await Self.peopleCorrections(session)
    }

    /// Usage: `let stored = try await index.storePeopleGrouping(grouping)`
    public func storePeopleGrouping(_ grouping: StoredPeopleGrouping) async throws -> Bool {
        try await session.transaction { session in
            var key = PostgresBindings()
            key.append(Self.peopleLock)
            try await session.execute("SELECT pg_advisory_xact_lock($1)", key)
            guard try await Self.currentPeopleFingerprint(session) == grouping.fingerprint else { return false }
            try await session.execute("DELETE FROM face_people")
            try await session.execute("DELETE FROM people")
            var people = PostgresBindings()
            people.append(grouping.people.map(\.id))
            people.append(grouping.people.map { $0.name ?? "" })
            people.append(grouping.people.map { $0.name.map(PeopleNames.key) ?? "" })
            people.append(grouping.people.map(\.anchor.contentHash))
            people.append(grouping.people.map { Int64($0.anchor.faceNumber) })
            people.append(grouping.people.map { Int64($0.faces.count) })
            people.append(grouping.people.map { Int64($0.photoCount) })
            try await session.execute("""
                INSERT INTO people(id, name, name_key, anchor_hash, anchor_number, face_count, photo_count)
                SELECT u.id, NULLIF(u.name, ''), NULLIF(u.name_key, ''), u.anchor_hash, u.anchor_number, u.face_count, u.photo_count
                FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
                    AS u(id, name, name_key, anchor_hash, anchor_number, face_count, photo_count)
                """, people)
            let rows = grouping.faceRows
            for start in stride(from: 0, to: rows.count, by: 50_000) {
                let chunk = rows[start..<min(rows.count, start + 50_000)]
                var faces = PostgresBindings()
                faces.append(chunk.map(\.hash))
                faces.append(chunk.map { Int64($0.number) })
                faces.append(chunk.map { $0.person ?? 0 })
                faces.append(chunk.map { Int64($0.hidden ? 1 : 0) })
                try await session.execute("""
                    INSERT INTO face_people(content_hash, face_number, person_id, hidden)
                    SELECT u.hash, u.number, NULLIF(u.person, 0), u.hidden FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS u(hash, number, person, hidden)
                    """, faces)
            }
            for (name, value) in [(PeopleSchema.fingerprintKey, grouping.fingerprint.text), (StoredPeopleGrouping.nextIDKey, String(grouping.nextID))] {
                var meta = PostgresBindings()
                meta.append(name)
                meta.append(value)
                try await session.execute("INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", meta)
            }
            try await session.execute("DELETE FROM people_state")
            if let snapshot = grouping.snapshot {
                var state = PostgresBindings()
                state.append(ByteBuffer(bytes: snapshot))
                try await session.execute("INSERT INTO people_state(id, snapshot) VALUES (1, $1)", state)
            }
            CrashPoints.reach(.grouping)
            return true
        }
    }

    /// Usage: `try await index.recordPeopleCorrections([.notAFace(face)], source: .user)`
    public func recordPeopleCorrections(_ kinds: [PeopleCorrection.Kind], source: CorrectionSource) async throws {
        try await session.transaction { session in
            let now = Timestamps.microseconds(Date())
            let sql = StoredPeopleCorrection.insert { "$\($0)" }
            for kind in kinds {
                var binds = PostgresBindings()
                for value in StoredPeopleCorrection.values(of: PeopleCorrection(kind, source: source, sequence: 0), madeAt: now) {
                    PostgresCopyTarget.bind(value, boolean: false, into: &binds)
                }
                try await session.execute(sql, binds)
            }
        }
    }

    /// Usage: `for person in try await index.people() { print(person.id) }`
    public func people() async throws -> [PersonSummary] {
        try await session.all(PeopleSchema.peopleList) { row in
            let (id, name, faces, photos, hash, number, sample) = try row.decode((Int64, String?, Int64, Int64, String, Int64, String?).self)
            return PersonSummary(
                id: id, name: name, faceCount: Int(faces), photoCount: Int(photos),
                anchor: FaceKey(contentHash: hash, faceNumber: Int(number)), samplePath: sample)
        }
    }

    /// Usage: `let waiting = try await index.unassignedFaces(limit: 100)`
    public func unassignedFaces(limit: Int) async throws -> [UnassignedFace] {
        var binds = PostgresBindings()
        binds.append(Int64(limit))
        return try await session.all(PeopleSchema.unassignedList + " LIMIT $1", binds) { row in
            let (path, number, faces) = try row.decode((String, Int64, ByteBuffer?).self)
            return UnassignedFace(
                path: path, faceNumber: Int(number) + 1,
                side: UnassignedFace.storedSide(ofFace: Int(number), in: faces.map { Data($0.readableBytesView) }))
        }
    }

    /// Usage: `let waiting = try await index.unassignedFaceCount()`
    public func unassignedFaceCount() async throws -> Int {
        let counts = try await session.all(PeopleSchema.unassignedCount, PostgresBindings()) { try $0.decode(Int64.self) }
        return Int(counts.first ?? 0)
    }

    /// Each stored face's person, by face number (from 0), for the content `hash`.
    func facePeople(contentHash hash: String) async throws -> [Int: FacePerson] {
        var binds = PostgresBindings()
        binds.append(hash)
        var found: [Int: FacePerson] = [:]
        let rows = try await session.all(PeopleSchema.facePeopleOfContent("$1"), binds) { try $0.decode((Int64, Int64, String?).self) }
        for (number, id, name) in rows {
            found[Int(number)] = FacePerson(id: id, name: name)
        }
        return found
    }
}

extension PostgresIndex {
    /// Usage: `let faces = try await index.faces(ofPerson: 7)`
    public func faces(ofPerson id: Int64) async throws -> [FaceKey] {
        var binds = PostgresBindings()
        binds.append(id)
        return try await session.all(PeopleSchema.facesOfPerson("$1"), binds) { row in
            let (hash, number) = try row.decode((String, Int64).self)
            return FaceKey(contentHash: hash, faceNumber: Int(number))
        }.sorted()
    }
}
