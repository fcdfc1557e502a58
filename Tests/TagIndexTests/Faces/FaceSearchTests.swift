import Foundation
import Testing
@testable import TagIndex

/// The word `face` and the vocabulary's `facesAtLeast` under every filter, on SQLite (both of its
/// engines) and on a PostgreSQL copy: a stored face is the detector's decision, so calibrated filters
/// pass the curve-less `face` label at any stored confidence, and `person`/`people` match it while
/// the classifier's person labels keep their own curves.
struct FaceSearchTests {
    static let model = ModelStamp(name: "lite0", version: "1+faces")
    /// high recall: 0.3, high precision: 0.6.
    static let curve = [
        CurvePoint(threshold: 0.3, precision: 0.5, recall: 0.95),
        CurvePoint(threshold: 0.6, precision: 0.92, recall: 0.5),
    ]
    static let labels = [
        LabelDefinition(identifier: "person", displayName: "person", curve: curve),
        LabelDefinition(identifier: "groom", displayName: "groom", parents: ["person"], curve: curve),
        LabelDefinition(identifier: "ballplayer", displayName: "ballplayer", parents: ["person"], curve: curve),
        LabelDefinition(identifier: "face", displayName: "face", synonyms: ["face", "faces"], parents: ["person"]),
        LabelDefinition(identifier: "dog", displayName: "dog", curve: curve),
    ]
    static let words = [
        VocabularyWord(word: "people", labels: ["person"], facesAtLeast: 1, reason: "person classes"),
        VocabularyWord(word: "couple", labels: ["person"], facesAtLeast: 2, reason: "person classes"),
        VocabularyWord(word: "group", labels: ["person"], facesAtLeast: 3, reason: "person classes"),
        VocabularyWord(word: "team", labels: ["ballplayer"], facesAtLeast: 3, reason: "ballplayers"),
        VocabularyWord(word: "pet", labels: ["dog"], reason: "dogs"),
        VocabularyWord(word: "woman", unsupported: "Not told apart; try faces:1+.", facesAtLeast: 1, reason: "no class"),
        VocabularyWord(word: "sky", unsupported: "The classifier cannot see the sky.", reason: "no class"),
    ]

    static func face(_ x: Double, _ confidence: Double) -> IndexedFace {
        IndexedFace(x: x, y: 10, width: 40, height: 48, confidence: confidence)
    }

    /// An image whose face label is its best face's confidence, as `IndexVocabulary` writes it
    /// (without `faceLabel`, as an index run without faces writes it: no face label, no faces).
    static func entry(_ name: String, _ observations: [(String, Double)], faces: [IndexedFace]?, faceLabel: Bool) -> IndexEntry {
        var all = observations
        if faceLabel, let best = faces?.map(\.confidence).max() { all.append(("face", best)) }
        return .classified(ImageClassification(
            path: "/f/\(name)", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
            contentHash: ContentHash.hex(of: Array(name.utf8)), width: 640, height: 480, model: model,
            observations: all.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }, faces: faceLabel ? faces : nil))
    }

    static func entries(faceLabel: Bool) -> [IndexEntry] { [
        entry("dog.jpg", [("dog", 0.9)], faces: [], faceLabel: faceLabel),
        entry("portrait.jpg", [("dog", 0.2)], faces: [face(1, 0.99)], faceLabel: faceLabel),
        entry("pair.jpg", [], faces: [face(1, 0.97), face(100, 0.96)], faceLabel: faceLabel),
        entry("wedding.jpg", [("groom", 0.7), ("person", 0.7)], faces: [face(1, 0.98), face(50, 0.96), face(99, 0.955)], faceLabel: faceLabel),
        entry("groom.jpg", [("groom", 0.8), ("person", 0.8)], faces: [], faceLabel: faceLabel),
        entry("faint.jpg", [("groom", 0.1), ("person", 0.1)], faces: [], faceLabel: faceLabel),
        entry("match.jpg", [("ballplayer", 0.9), ("person", 0.9)], faces: [face(1, 0.96)], faceLabel: faceLabel),
        entry("unscanned.jpg", [("ballplayer", 0.7), ("person", 0.7)], faces: nil, faceLabel: faceLabel),
    ] }

    /// The fixture, written in SQLite, read through `backend` (``BackendIndex``: on SQLite both
    /// engines must agree; cancelled where PostgreSQL is missing).
    enum Fixture {
        static func make(_ backend: Backend, taxonomy: [LabelDefinition] = labels) async throws -> BackendIndex {
            let directory = try TemporaryDirectory()
            let sqlite = try SQLiteIndex(url: directory.databaseURL)
            try sqlite.replaceTaxonomy(taxonomy, model: model, vocabulary: words)
            try sqlite.write(batch: entries(faceLabel: taxonomy.contains { $0.identifier == "face" }))
            return try await BackendIndex.make(backend, copying: sqlite, in: directory)
        }
    }

    static let withFaces = ["match.jpg", "pair.jpg", "portrait.jpg", "wedding.jpg"]

    @Test(arguments: Backend.allCases) func theWordFaceFindsEveryStoredFaceUnderEveryFilter(backend: Backend) async throws {
        let fixture = try await Fixture.make(backend)
        for filter: CalibratedFilter? in [nil, .highRecall, .highPrecision, .precision(0.99), .recall(0.5)] {
            #expect(try await fixture.names("face", filter) == Self.withFaces, "\(String(describing: filter))")
            #expect(try await fixture.names("faces", filter) == Self.withFaces, "\(String(describing: filter))")
        }
        // Scored by the best face, best first.
        #expect(try await fixture.hits("face", .highRecall) == ["portrait.jpg 0.990", "wedding.jpg 0.980", "pair.jpg 0.970", "match.jpg 0.960"])
        // A query's own floor still applies to the face's confidence.
        #expect(try await fixture.names("face min:0.975") == ["portrait.jpg", "wedding.jpg"])
        #expect(try await fixture.names("face filter:high-precision min:0.975") == ["portrait.jpg", "wedding.jpg"])
        #expect(try await fixture.names("face:0.975", .highPrecision) == ["portrait.jpg", "wedding.jpg"])
        // The face label combines like any term.
        #expect(try await fixture.names("face -groom", .highRecall) == ["match.jpg", "pair.jpg", "portrait.jpg"])
        #expect(try await fixture.names("face OR dog", .highPrecision) == ["dog.jpg"] + Self.withFaces)
    }

    @Test(arguments: Backend.allCases) func personMatchesFacesAndKeepsItsOwnCurves(backend: Backend) async throws {
        let fixture = try await Fixture.make(backend)
        // high recall: groom 0.8 and the person classes at 0.3+, and every face; faint (0.1) is out.
        let recall = ["groom.jpg", "match.jpg", "pair.jpg", "portrait.jpg", "unscanned.jpg", "wedding.jpg"]
        #expect(try await fixture.names("person", .highRecall) == recall)
        #expect(try await fixture.names("people", .highRecall) == recall)
        // high precision (0.6): unscanned (0.7) and groom (0.8) stay, faint stays out; faces still pass.
        #expect(try await fixture.names("person", .highPrecision) == recall)
        #expect(try await fixture.names("person", .precision(0.95)) == Self.withFaces)  // no curve point reaches 0.95
        // Other labels are untouched: dog on the portrait (0.2) is below dog's high-recall 0.3.
        #expect(try await fixture.names("dog", .highRecall) == ["dog.jpg"])
        #expect(try await fixture.names("dog") == ["dog.jpg", "portrait.jpg"])
        #expect(try await fixture.names("pet", .highRecall) == ["dog.jpg"])
    }

    @Test(arguments: Backend.allCases) func wordsWithFacesAtLeastCountTheFaces(backend: Backend) async throws {
        let fixture = try await Fixture.make(backend)
        for filter: CalibratedFilter? in [nil, .highRecall] {
            let faint = filter == nil ? ["faint.jpg"] : []
            // couple (2): the person labels unless fewer than 2 faces were found, and every image with 2+.
            #expect(try await fixture.names("couple", filter) == (faint + ["groom.jpg", "pair.jpg", "unscanned.jpg", "wedding.jpg"]).sorted())
            // group (3): the portrait, the pair and the ballplayer with one face are not groups.
            #expect(try await fixture.names("group", filter) == (faint + ["groom.jpg", "unscanned.jpg", "wedding.jpg"]).sorted())
            // team (3): ballplayers (unless 1-2 faces were found) OR any image with 3+ faces.
            #expect(try await fixture.names("team", filter) == ["unscanned.jpg", "wedding.jpg"])
            // An unsupported word with faces searches the faces alone.
            #expect(try await fixture.names("woman", filter) == Self.withFaces)
        }
        #expect(try await fixture.hits("group", .highRecall) == ["groom.jpg 0.800", "unscanned.jpg 0.700", "wedding.jpg 0.980"]
            .sorted { Double($0.split(separator: " ")[1])! > Double($1.split(separator: " ")[1])! })
        #expect(try await fixture.hits("team", .highRecall) == ["wedding.jpg 0.980", "unscanned.jpg 0.700"])
        // Combined with the rest of the language and with the faces filter.
        #expect(try await fixture.names("group -groom", .highRecall) == ["unscanned.jpg"])
        #expect(try await fixture.names("couple faces:2", .highRecall) == ["pair.jpg"])
        #expect(try await fixture.names("woman OR dog", .highRecall) == ["dog.jpg"] + Self.withFaces)
        await #expect(throws: TagIndexError.self) { try await fixture.names("sky") }
    }

    @Test(arguments: Backend.allCases) func withoutFacesIndexedTheWordsKeepTheirLabels(backend: Backend) async throws {
        // A taxonomy without the face label: an index that never stored faces.
        let fixture = try await Fixture.make(backend, taxonomy: Self.labels.filter { $0.identifier != "face" })
        #expect(try await fixture.names("group", .highRecall) == ["groom.jpg", "match.jpg", "unscanned.jpg", "wedding.jpg"])
        #expect(try await fixture.names("team") == ["match.jpg", "unscanned.jpg"])
        await #expect(throws: TagIndexError.self) { try await fixture.names("woman") }
    }

    @Test(arguments: Backend.allCases) func statisticsCountTheFaces(backend: Backend) async throws {
        let statistics = try await Fixture.make(backend).statistics()
        #expect(statistics.imageCount == 8)
        #expect(statistics.faceScannedCount == 7)   // all but unscanned.jpg
        #expect(statistics.imagesWithFacesCount == 4)
        #expect(statistics.faceCount == 1 + 2 + 3 + 1)
    }

    @Test func meaningReportsTheFacesAWordSearches() throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model, vocabulary: Self.words)
        let woman = try index.meaning(of: "woman")
        #expect(woman.facesAtLeast == 1 && !woman.isUnsupported)
        #expect(try index.meaning(of: "group").facesAtLeast == 3)
        #expect(try index.meaning(of: "sky").isUnsupported)
        try index.replaceTaxonomy(Self.labels.filter { $0.identifier != "face" }, model: Self.model, vocabulary: Self.words)
        let before = try index.meaning(of: "woman")
        #expect(before.facesAtLeast == nil && before.isUnsupported)
    }

    @Test(arguments: Backend.allCases) func facetsAndUntaggedCountTheFaceLabelUnderACalibratedFilter(backend: Backend) async throws {
        let fixture = try await Fixture.make(backend)
        for engine in backend == .sqlite ? [Query.Engine.automatic, .sql] : [.automatic] {
            var query = Query()
            query.calibration = .highPrecision
            query.facetCount = 10
            query.engine = engine
            let facets = try await fixture.search(query).facets
            #expect(facets.first { $0.identifier == "face" }?.count == 4, "\(engine)")
            // With a term (the dense engine's facets on SQLite).
            var person = try Query(parsing: "person")
            person.calibration = .highPrecision
            person.facetCount = 10
            person.engine = engine
            #expect(try await fixture.search(person).facets.first { $0.identifier == "face" }?.count == 4, "\(engine)")
            var untagged = try Query(parsing: "untagged")
            untagged.calibration = .highPrecision
            untagged.engine = engine
            // faint (0.1) has nothing that passes; the portrait's dog (0.2) does not pass but its face does.
            #expect(try await fixture.search(untagged).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["faint.jpg"], "\(engine)")
        }
    }
}

extension BackendIndex {
    /// The hits as (name, score to 1e-3), in result order.
    fileprivate func hits(_ text: String, _ calibration: CalibratedFilter? = nil) async throws -> [String] {
        var query = try Query(parsing: text)
        if let calibration { query.calibration = calibration }
        query.limit = 100
        return try await search(query).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent + String(format: " %.3f", $0.score) }
    }

    /// The matching names, sorted.
    fileprivate func names(_ text: String, _ calibration: CalibratedFilter? = nil) async throws -> [String] {
        try await hits(text, calibration).map { String($0.split(separator: " ")[0]) }.sorted()
    }
}
