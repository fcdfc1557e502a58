import Foundation
@testable import TagIndex

/// A small labelled library in a fresh temporary database, one per test.
///
/// Taxonomy: animal > dog > {golden_retriever, labrador_retriever,
/// flat_coated_retriever, poodle}; animal > cat > tabby; outdoor > {beach, grass}; indoor.
struct FixtureIndex {
    static let model = ModelStamp(name: "lite0", version: "1")
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    let directory: TemporaryDirectory
    let index: SQLiteIndex

    static let labels: [LabelDefinition] = [
        LabelDefinition(identifier: "animal", displayName: "Animal"),
        LabelDefinition(
            identifier: "dog", displayName: "Dog", synonyms: ["puppy"], parents: ["animal"],
            curve: [
                CurvePoint(threshold: 0.2, precision: 0.6, recall: 0.95),
                CurvePoint(threshold: 0.5, precision: 0.85, recall: 0.85),
                CurvePoint(threshold: 0.85, precision: 0.95, recall: 0.5),
            ]),
        LabelDefinition(
            identifier: "golden_retriever", displayName: "Golden Retriever", synonyms: ["golden"],
            parents: ["dog"],
            curve: [
                CurvePoint(threshold: 0.3, precision: 0.7, recall: 0.9),
                CurvePoint(threshold: 0.6, precision: 0.92, recall: 0.7),
            ]),
        LabelDefinition(
            identifier: "labrador_retriever", displayName: "Labrador Retriever", synonyms: ["lab"],
            parents: ["dog"]),
        LabelDefinition(
            identifier: "flat_coated_retriever", displayName: "Flat-Coated Retriever", parents: ["dog"]),
        LabelDefinition(identifier: "poodle", displayName: "Poodle", parents: ["dog"]),
        LabelDefinition(
            identifier: "cat", displayName: "Cat", synonyms: ["kitty"], parents: ["animal"],
            curve: [CurvePoint(threshold: 0.7, precision: 0.9, recall: 0.8)]),
        LabelDefinition(identifier: "tabby", displayName: "Tabby Cat", parents: ["cat"]),
        LabelDefinition(identifier: "outdoor", displayName: "Outdoor"),
        LabelDefinition(identifier: "beach", displayName: "Beach", synonyms: ["seaside"], parents: ["outdoor"]),
        LabelDefinition(identifier: "grass", displayName: "Grass", parents: ["outdoor"]),
        LabelDefinition(identifier: "indoor", displayName: "Indoor"),
    ]

    /// path, size, days after epoch, width, height, observations
    static let images: [(String, Int64, Double, Int, Int, [(String, Double)])] = [
        ("/lib/a/golden1.jpg", 3_000_000, 1, 4000, 3000,
         [("golden_retriever", 0.9), ("dog", 0.95), ("animal", 0.97), ("grass", 0.6), ("outdoor", 0.7)]),
        ("/lib/a/lab1.png", 500_000, 2, 1024, 768,
         [("labrador_retriever", 0.7), ("dog", 0.8), ("animal", 0.85), ("beach", 0.5), ("outdoor", 0.55)]),
        ("/lib/b/flat1.jpg", 1_200_000, 3, 2000, 1500,
         [("flat_coated_retriever", 0.4), ("dog", 0.5), ("animal", 0.6), ("indoor", 0.8)]),
        ("/lib/b/poodle1.jpg", 800_000, 4, 1600, 1200,
         [("poodle", 0.85), ("dog", 0.88), ("animal", 0.9), ("indoor", 0.3)]),
        ("/lib/b/tabby1.jpg", 900_000, 5, 1200, 1600,
         [("tabby", 0.75), ("cat", 0.8), ("animal", 0.82), ("indoor", 0.9)]),
        ("/lib/c/beach1.jpg", 2_000_000, 6, 3000, 2000, [("beach", 0.95), ("outdoor", 0.96)]),
        ("/lib/c/blank.jpg", 100_000, 7, 640, 480, [("grass", 0.005)]),
    ]

    static func date(days: Double) -> Date { epoch.addingTimeInterval(days * 86_400) }

    init() throws {
        directory = try TemporaryDirectory()
        index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        try index.write(batch: Self.entries)
    }

    /// The images and the failed file, as one batch.
    static var entries: [IndexEntry] {
        var batch: [IndexEntry] = images.map { path, size, days, width, height, observations in
            .classified(ImageClassification(
                path: path, size: size, modificationTime: date(days: days),
                contentHash: ContentHash.hex(of: Array(path.utf8)), width: width, height: height,
                model: model,
                observations: observations.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }))
        }
        batch.append(.failed(ImageFailure(
            path: "/lib/c/broken.jpg", size: 10, modificationTime: date(days: 8), contentHash: nil,
            model: model, stage: "decode", reason: "truncated JPEG")))
        return batch
    }

    /// Paths of a search, in result order.
    func paths(_ text: String) throws -> [String] {
        try index.search(text).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }

    func paths(_ query: Query) throws -> [String] {
        try index.search(query).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }
}
