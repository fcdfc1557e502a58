import ClassifyPeople
import ClassifyTestSupport
import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// People in an index, the same on both backends: grouping the stored descriptors, ids that stay
/// with a person, every correction (name, merge, move, not this person, hide) surviving
/// re-indexing and regrouping, and `person:` search in any combination.
struct PeopleIndexTests {
    static let model = FaceIndexTests.model
    static let labels = FaceIndexTests.labels

    /// A person's descriptor as dlib's are (norm about 1): a seeded direction, plus per-photo noise
    /// of norm `noise`: photos of one person are about 0.3 apart, two people about 1.4.
    static func descriptor(person: Int, photo: Int, noise: Float = 0.2) -> [Float] {
        var random = SeededRandom(seed: UInt64(person) * 7_919 + 17)
        let base = unit(random.floats(128))
        var photoRandom = SeededRandom(seed: UInt64(person) * 104_729 + UInt64(photo) * 31 + 5)
        let jitter = unit(photoRandom.floats(128))
        return zip(base, jitter).map { $0 + noise * $1 }
    }

    static func unit(_ values: [Float]) -> [Float] {
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }

    /// A photo holding the faces of `people` (a negative number: a stranger seen once).
    static func entry(_ name: String, root: String, people: [(person: Int, photo: Int)], label: String = "dog") -> IndexEntry {
        let faces = people.enumerated().map { index, face in
            IndexedFace(
                x: Double(10 + 60 * index), y: 10, width: 40, height: 48, confidence: 0.9 - Double(index) * 0.01,
                descriptor: descriptor(person: face.person, photo: face.photo))
        }
        return .classified(ImageClassification(
            path: "\(root)/\(name)", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
            contentHash: "hash-\(name)", width: 640, height: 480, model: model,
            observations: [LabelConfidence(identifier: label, confidence: 0.9)], faces: faces))
    }

    /// The library: Anna-to-be (person 1) in a1-a3, Ben-to-be (person 2) in b1-b3, both in
    /// "both.jpg", a stranger in "stranger.jpg".
    static func library(root: String) -> [IndexEntry] {
        [
            entry("a1.jpg", root: root, people: [(1, 1)]), entry("a2.jpg", root: root, people: [(1, 2)]),
            entry("a3.jpg", root: root, people: [(1, 3)], label: "cat"),
            entry("b1.jpg", root: root, people: [(2, 1)]), entry("b2.jpg", root: root, people: [(2, 2)]),
            entry("b3.jpg", root: root, people: [(2, 3)]),
            entry("both.jpg", root: root, people: [(1, 4), (2, 4)]),
            entry("stranger.jpg", root: root, people: [(3, 1)]),
        ]
    }

    static func paths(_ index: any IndexBackend, _ query: String) async throws -> [String] {
        try await index.search(try Query(parsing: query, places: nil)).hits.map { String($0.path.split(separator: "/").last!) }.sorted()
    }

    /// Place names as the places file answers them: Anna (a town in Russia, as in GeoNames), Ben
    /// (a hamlet), Paris.
    struct Towns: PlaceNameResolver {
        static let words: [String: PlaceWord] = [
            "anna": PlaceWord(matches: [.places([580_054])], name: "Anna, Russia", isProminent: false),
            "ben": PlaceWord(matches: [.places([1])], name: "Ben, Nowhere", isProminent: false),
            "paris": PlaceWord(matches: [.places([2_988_507])], name: "Paris, France", isProminent: true),
        ]
        func matches(forPlaceNamed name: String) -> [PlaceMatch] { Self.words[name.lowercased()]?.matches ?? [] }
        func countryCode(named name: String) -> String? { nil }
        func place(forWord word: String) -> PlaceWord? { Self.words[word] }
    }

    /// The page of `query` read with the places of ``Towns``.
    static func search(_ index: any IndexBackend, _ query: String) async throws -> (paths: [String], notes: [String]) {
        let page = try await index.search(try Query(parsing: query, places: Towns()))
        return (page.hits.map { String($0.path.split(separator: "/").last!) }.sorted(), page.notes)
    }

    /// The checks both backends share; `write` stores entries as an index run does, `root` is how
    /// paths are stored.
    static func exercise(_ index: any IndexBackend, root: String, write: ([IndexEntry]) async throws -> Void) async throws {
        try await write(library(root: root))
        // Each face goes to grouping with the shorter side of its stored box (40 x 48).
        #expect(try await index.peopleGroupingInputs().faces.map(\.side) == Array(repeating: 40, count: 9))
        let first = try await index.refreshPeople()
        #expect(first.regrouped && first.people == 2 && first.named == 0 && first.unassigned == 1 && first.faces == 9)
        #expect(try await index.refreshPeople().regrouped == false)
        var people = try await index.people()
        #expect(people.map(\.faceCount) == [4, 4] && people.map(\.photoCount) == [4, 4])
        let anna = try #require(people.first { $0.samplePath?.hasSuffix("/a1.jpg") == true || $0.samplePath?.hasSuffix("/a2.jpg") == true || $0.samplePath?.hasSuffix("/a3.jpg") == true || ($0.samplePath?.hasSuffix("/both.jpg") == true && $0.anchor.faceNumber == 0) })
        let ben = try #require(people.first { $0.id != anna.id })
        #expect(Set(people.map(\.id)) == [1, 2])
        // A waiting face comes with its box's shorter side: 40 px is large enough to group.
        let waiting = try await index.unassignedFaces(limit: 10)
        #expect(waiting == [UnassignedFace(path: "\(root)/stranger.jpg", faceNumber: 1, side: 40)])
        #expect(try await index.unassignedFaceCount() == 1)
        #expect(waiting.map { $0.isTooSmallToGroup() } == [false])
        #expect(UnassignedFace(path: "x.jpg", faceNumber: 1, side: 39.5).isTooSmallToGroup())
        #expect(!UnassignedFace(path: "x.jpg", faceNumber: 1).isTooSmallToGroup())
        let json = String(decoding: try JSONOutput.encode(UnassignedFacesOutput(waiting + [UnassignedFace(path: "x.jpg", faceNumber: 2, side: 31.4)])), as: UTF8.self)
        #expect(json.contains("\"side\":40") && json.contains("\"side\":31") && json.contains("\"too_small\":true") && json.contains("\"too_small\":false"), "\(json)")

        // person:ID finds unnamed people; show names each face's person.
        #expect(try await paths(index, "person:\(anna.id)") == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        let both = try #require(try await index.faces(forPath: "\(root)/both.jpg"))
        #expect(both.map { $0.person?.id } == [anna.id, ben.id])

        // Naming: by name, prefix, accents and case ignored, typed alone; in any combination.
        try await index.correctPeople(.name(person: anna.id, "Anna Zoé"))
        try await index.correctPeople(.name(person: ben.id, "Ben"))
        people = try await index.people()
        #expect(people.map(\.name) == ["Anna Zoé", "Ben"] && people.map(\.id) == [anna.id, ben.id])
        #expect(try await paths(index, "person:\"anna zoe\"") == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(try await paths(index, "person:ANN") == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(try await paths(index, "person:zoe") == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(try await paths(index, "ben") == ["b1.jpg", "b2.jpg", "b3.jpg", "both.jpg"])
        #expect(try await paths(index, "person:anna AND person:ben") == ["both.jpg"])
        #expect(try await paths(index, "person:anna NOT person:ben") == ["a1.jpg", "a2.jpg", "a3.jpg"])
        #expect(try await paths(index, "person:anna OR person:ben") == ["a1.jpg", "a2.jpg", "a3.jpg", "b1.jpg", "b2.jpg", "b3.jpg", "both.jpg"])
        #expect(try await paths(index, "person:anna cat") == ["a3.jpg"])
        #expect(try await paths(index, "ben dog") == ["b1.jpg", "b2.jpg", "b3.jpg", "both.jpg"])
        // One word of a name typed alone, and the whole name unquoted, find the person too.
        #expect(try await paths(index, "zoe") == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(try await paths(index, "ANNA zoé dog") == ["a1.jpg", "a2.jpg", "both.jpg"])
        #expect(try await paths(index, "zoe OR ben") == ["a1.jpg", "a2.jpg", "a3.jpg", "b1.jpg", "b2.jpg", "b3.jpg", "both.jpg"])
        await #expect(throws: TagIndexError.self) { try await index.search(try Query(parsing: "zo", places: nil)) }
        // A name beats the small towns and the places of the same name, and says how to ask for them.
        let annaPage = try await search(index, "anna")
        #expect(annaPage.paths == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(annaPage.notes == ["'anna' is searched as a person; for photos taken in Anna, Russia, write place:anna."])
        #expect(try await search(index, "anna zoe").paths == ["a1.jpg", "a2.jpg", "a3.jpg", "both.jpg"])
        #expect(try await search(index, "anna cat").paths == ["a3.jpg"])
        #expect(try await search(index, "ben dog").paths == ["b1.jpg", "b2.jpg", "b3.jpg", "both.jpg"])
        #expect(try await search(index, "place:anna").paths.isEmpty)
        #expect(try await search(index, "paris").notes.isEmpty)
        #expect(try await paths(index, "person:anna -cat") == ["a1.jpg", "a2.jpg", "both.jpg"])
        await #expect(throws: TagIndexError.self) { try await index.search(try Query(parsing: "person:carl", places: nil)) }
        await #expect(throws: TagIndexError.self) { try await index.search(try Query(parsing: "person:99", places: nil)) }
        #expect(try await index.faces(forPath: "\(root)/both.jpg")?.map { $0.person?.name } == ["Anna Zoé", "Ben"])

        // Re-indexing the same files changes nothing; a new photo of Anna joins her.
        try await write(library(root: root) + [entry("a5.jpg", root: root, people: [(1, 5)])])
        #expect(try await index.refreshPeople().regrouped)
        people = try await index.people()
        #expect(people.map(\.name) == ["Anna Zoé", "Ben"] && people.map(\.id) == [anna.id, ben.id] && people.map(\.faceCount) == [5, 4])

        // Not this person: the face of Anna in a1 leaves her and waits; moving the stranger to Ben.
        try await index.correctPeople(.notThisPerson(path: "\(root)/a1.jpg", face: 1, person: anna.id))
        try await index.correctPeople(.move(path: "\(root)/stranger.jpg", face: 1, to: ben.id))
        #expect(try await paths(index, "person:anna") == ["a2.jpg", "a3.jpg", "a5.jpg", "both.jpg"])
        #expect(try await paths(index, "person:ben") == ["b1.jpg", "b2.jpg", "b3.jpg", "both.jpg", "stranger.jpg"])
        // Hiding: Ben's face in b1 is not a face.
        try await index.correctPeople(.hide(path: "\(root)/b1.jpg", face: 1))
        #expect(try await paths(index, "person:ben") == ["b2.jpg", "b3.jpg", "both.jpg", "stranger.jpg"])
        #expect(try await index.unassignedFaces(limit: 10).map(\.path) == ["\(root)/a1.jpg"])
        // The hidden face and the moved stranger no longer wait; Anna's face from a1 does.
        #expect(try await index.unassignedFaceCount() == 1)

        // Every fact survives re-indexing and a regrouping from scratch.
        try await write(library(root: root) + [entry("a5.jpg", root: root, people: [(1, 5)])])
        _ = try await index.refreshPeople(force: true)
        #expect(try await paths(index, "person:anna") == ["a2.jpg", "a3.jpg", "a5.jpg", "both.jpg"])
        #expect(try await paths(index, "person:ben") == ["b2.jpg", "b3.jpg", "both.jpg", "stranger.jpg"])
        // Two names, not this person and the name moved off a1's face, the move, the hidden face
        // and the facts moved off it (Ben's name, the stranger's move).
        #expect(try await index.peopleCorrections().count == 8)

        // Merging keeps the id of the person with more faces; the names become one person's.
        try await index.correctPeople(.merge([anna.id, ben.id]))
        people = try await index.people()
        #expect(people.count == 1 && people[0].faceCount == 8)
        #expect(try await paths(index, "person:ben") == ["a2.jpg", "a3.jpg", "a5.jpg", "b2.jpg", "b3.jpg", "both.jpg", "stranger.jpg"])

        // Bad requests are sentences, and record nothing.
        await #expect(throws: TagIndexError.self) { try await index.correctPeople(.name(person: 99, "X")) }
        await #expect(throws: TagIndexError.self) { try await index.correctPeople(.hide(path: "\(root)/a1.jpg", face: 2)) }
        await #expect(throws: TagIndexError.self) { try await index.correctPeople(.name(person: people[0].id, "  ")) }
        await #expect(throws: TagIndexError.self) { try await index.correctPeople(.merge([people[0].id])) }
        #expect(try await index.peopleCorrections().count == 9)
    }

    @Test func aWordOfANameCallsEveryoneWithIt() {
        let directory = PeopleDirectory(entries: [
            .init(id: 1, name: "Anna Zoé Martin", photoCount: 3), .init(id: 2, name: "Paul Martin", photoCount: 2),
            .init(id: 3, name: "Martina", photoCount: 1), .init(id: 4, name: nil, photoCount: 5),
        ])
        #expect(directory.called("martin").map(\.id) == [1, 2])
        #expect(directory.called("MARTINA").map(\.id) == [3])
        #expect(directory.called("zoe").map(\.id) == [1])
        #expect(directory.called("anna zoe martin").map(\.id) == [1])
        // Only whole names span words; prefixes and empty text call no one.
        #expect(directory.called("zoe martin").isEmpty && directory.called("mar").isEmpty && directory.called("  ").isEmpty)
    }

    /// Two named people merged, then the face that carried the losing name taken out: the person
    /// keeps the name it went by, and the face keeps its own (before, the losing name moved to the
    /// person's other faces as the newest fact and renamed the person).
    @Test func takingOutAFaceKeepsThePersonsName() async throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        try await Self.write(Self.library(root: "/f"), to: index)
        _ = try await index.refreshPeople()
        let before = try await index.people()
        let anna = try #require(before.first { $0.samplePath?.contains("/a") == true }), ben = try #require(before.first { $0.id != anna.id })
        try await index.correctPeople(.name(person: anna.id, "Anna"))
        try await index.correctPeople(.name(person: ben.id, "Ben"))
        try await index.correctPeople(.merge([anna.id, ben.id]))
        let merged = try #require(try await index.people().first)
        #expect(try await index.people().count == 1 && merged.name == "Ben")
        // Anna's named face: the first face of the photo it is in.
        let path = "/f/" + anna.anchor.contentHash.dropFirst("hash-".count)
        try await index.correctPeople(.notThisPerson(path: path, face: anna.anchor.faceNumber + 1, person: merged.id))
        let after = try await index.people()
        #expect(after.first { $0.id == merged.id }?.name == "Ben")
        #expect(try await index.faces(forPath: path)?[anna.anchor.faceNumber].person?.name == "Anna")
        #expect(after.compactMap(\.name).sorted() == ["Anna", "Ben"])
    }

    @Test func sqlitePeople() async throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        try await Self.exercise(index, root: "/f") { try await Self.write($0, to: index) }
    }

    /// Writes `entries` under "/f" as an index run does.
    static func write(_ entries: [IndexEntry], to index: SQLiteIndex) async throws {
        let run = try await index.beginRun(
            roots: [try LibraryRoot(parsing: "/f")], labels: Self.labels, model: Self.model, vocabulary: [], settings: RunSettings())
        let worker = run.makeWorker()
        _ = try await worker.write(entries, completing: [])
        await worker.close()
        _ = try await run.finish()
    }

    @Test func postgresPeople() async throws {
        guard PostgresTestServer.isAvailable else { try Test.cancel(PostgresTestServer.skipReason) }
        let database = try await PostgresTestServer.freshDatabase()
        let root = try LibraryRoot(name: "lib", localPath: "/lib")
        // A first, empty run creates the schema.
        _ = try await PostgresIndexRun.begin(database, roots: [root], labels: Self.labels, model: Self.model, settings: RunSettings()).finish()
        let index = try await PostgresIndex.open(database)
        defer { Task { await index.close() } }
        try await Self.exercise(index, root: "lib:") { entries in
            let run = try await PostgresIndexRun.begin(database, roots: [root], labels: Self.labels, model: Self.model, settings: RunSettings())
            let worker = run.makeWorker()
            _ = try await worker.write(entries.map(Self.local), completing: [])
            await worker.close()
            _ = try await run.finish()
        }
        try await PostgresIndexRunTests.checkIntegrity(database)
    }

    /// An entry written under "/lib" (the root's local path), stored as "lib:/name".
    static func local(_ entry: IndexEntry) -> IndexEntry {
        guard case .classified(var classification) = entry else { return entry }
        classification.path = "/lib/" + classification.path.split(separator: "/").last!
        return .classified(classification)
    }
}
