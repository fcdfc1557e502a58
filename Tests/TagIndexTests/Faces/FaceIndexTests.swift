import Foundation
import Testing
@testable import TagIndex

/// Stored faces (schema v5): counts, boxes and confidences per image, `faces:N` / `faces:N+` /
/// `faces:0`, and the `face` label below `person` that a face run adds; written in SQLite, read on
/// both backends (``BackendIndex``).
struct FaceIndexTests {
    static let model = ModelStamp(name: "lite0", version: "1+faces")
    static let labels = [
        LabelDefinition(identifier: "person", displayName: "person"),
        LabelDefinition(identifier: "groom", displayName: "groom", parents: ["person"]),
        LabelDefinition(identifier: "face", displayName: "face", synonyms: ["face", "faces"], parents: ["person"]),
        LabelDefinition(identifier: "dog", displayName: "dog"),
    ]

    static func face(_ x: Double, _ confidence: Double) -> IndexedFace {
        IndexedFace(x: x, y: 10, width: 40, height: 48, confidence: confidence)
    }

    static func entry(_ name: String, _ observations: [(String, Double)], faces: [IndexedFace]?) -> IndexEntry {
        .classified(ImageClassification(
            path: "/f/\(name)", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
            contentHash: ContentHash.hex(of: Array(name.utf8)), width: 640, height: 480, model: model,
            observations: observations.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }, faces: faces))
    }

    static func makeIndex(_ directory: TemporaryDirectory) throws -> SQLiteIndex {
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(labels, model: model)
        try index.write(batch: [
            entry("none.jpg", [("dog", 0.9)], faces: []),
            entry("one.jpg", [("dog", 0.5), ("face", 0.99)], faces: [face(1, 0.99)]),
            entry("two.jpg", [("face", 0.95)], faces: [face(1, 0.8), face(100, 0.95)]),
            entry("three.jpg", [("groom", 0.7), ("face", 0.9)], faces: [face(1, 0.9), face(50, 0.85), face(99, 0.75)]),
            entry("unknown.jpg", [("dog", 0.8)], faces: nil),
        ])
        return index
    }

    /// The index of `makeIndex` read through `backend`.
    static func make(_ backend: Backend) async throws -> BackendIndex {
        let directory = try TemporaryDirectory()
        return try await BackendIndex.make(backend, copying: try makeIndex(directory), in: directory)
    }

    static func names(_ index: BackendIndex, _ text: String) async throws -> [String] {
        try await index.paths(text).sorted()
    }

    @Test(arguments: Backend.allCases) func facesAreStoredHighestConfidenceFirst(backend: Backend) async throws {
        let index = try await Self.make(backend)
        let two = try #require(try await index.faces(forPath: "/f/two.jpg"))
        #expect(two.map(\.confidence).map { Float($0) } == [0.95, 0.8])
        #expect(two[0].x == 100 && two[0].width == 40 && two[0].height == 48)
        #expect(try await index.faces(forPath: "/f/none.jpg") == [])
        #expect(try await index.faces(forPath: "/f/unknown.jpg") == nil)
        #expect(try await index.faces(forPath: "/f/missing.jpg") == nil)
    }

    @Test(arguments: Backend.allCases) func faceCountFilters(backend: Backend) async throws {
        let index = try await Self.make(backend)
        #expect(try await Self.names(index, "faces:0") == ["none.jpg"])
        #expect(try await Self.names(index, "faces:1") == ["one.jpg"])
        #expect(try await Self.names(index, "faces:2") == ["two.jpg"])
        #expect(try await Self.names(index, "faces:2+") == ["three.jpg", "two.jpg"])
        #expect(try await Self.names(index, "faces:1+") == ["one.jpg", "three.jpg", "two.jpg"])
        #expect(try await Self.names(index, "dog faces:0") == ["none.jpg"])
        #expect(try await Self.names(index, "dog faces:1+") == ["one.jpg"])
        #expect(try await Self.names(index, "-dog faces:0") == [])
        #expect(try await Self.names(index, "faces:1+ under:/f type:jpg") == ["one.jpg", "three.jpg", "two.jpg"])
        #expect(throws: QuerySyntaxError.self) { try Query(parsing: "faces:two") }
        #expect(throws: QuerySyntaxError.self) { try Query(parsing: "faces:-1") }
    }

    @Test(arguments: Backend.allCases) func faceWordAndPersonMatchFaces(backend: Backend) async throws {
        let index = try await Self.make(backend)
        #expect(try await Self.names(index, "face") == ["one.jpg", "three.jpg", "two.jpg"])
        let scores = try await index.search("face").hits.map { Float($0.score) }
        #expect(scores.first.map { abs($0 - 0.99) < 0.01 } == true)
        #expect(try await Self.names(index, "person") == ["one.jpg", "three.jpg", "two.jpg"])
        #expect(try await Self.names(index, "faces") == ["one.jpg", "three.jpg", "two.jpg"])
    }

    /// Written again in SQLite, then read on `backend`.
    @Test(arguments: Backend.allCases) func reindexingWithoutFacesRemovesThemAndFailuresHaveNone(backend: Backend) async throws {
        let directory = try TemporaryDirectory()
        let written = try Self.makeIndex(directory)
        try written.write(batch: [
            Self.entry("two.jpg", [("dog", 0.6)], faces: nil),
            .failed(ImageFailure(path: "/f/one.jpg", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_001),
                                 contentHash: nil, model: Self.model, stage: "decode", reason: "truncated")),
        ])
        let index = try await BackendIndex.make(backend, copying: written, in: directory)
        #expect(try await index.faces(forPath: "/f/two.jpg") == nil)
        #expect(try await index.faces(forPath: "/f/one.jpg") == nil)
        #expect(try await Self.names(index, "faces:1+") == ["three.jpg"])
        #expect(try await index.statistics().faceCount == 3)
    }
}
