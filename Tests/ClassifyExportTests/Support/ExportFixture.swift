import Foundation
import TagIndex

/// A temporary folder with a small index: animal > dog > golden_retriever, outdoor > grass, and
/// images under `root` (the image files themselves are not needed to write sidecars).
final class ExportFixture: @unchecked Sendable {
    let root: URL
    let index: SQLiteIndex

    static let model = ModelStamp(name: "lite0", version: "1")

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("classify-export-\(UUID().uuidString)")
            .resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        index = try SQLiteIndex(url: root.appendingPathComponent("index.sqlite"))
        let curve = [CurvePoint(threshold: 0.3, precision: 0.95, recall: 0.9)]
        try index.replaceTaxonomy([
            LabelDefinition(identifier: "animal", displayName: "animal"),
            LabelDefinition(identifier: "dog", displayName: "dog", parents: ["animal"]),
            LabelDefinition(identifier: "golden_retriever", displayName: "golden retriever", parents: ["dog"], curve: curve),
            LabelDefinition(identifier: "outdoor", displayName: "outdoor"),
            LabelDefinition(identifier: "grass", displayName: "grass", parents: ["outdoor"], curve: curve),
            LabelDefinition(identifier: "person", displayName: "person"),
            LabelDefinition(identifier: SQLiteIndex.faceLabel, displayName: "face", parents: ["person"]),
        ], model: Self.model)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// Indexes `name` with these observations (and these faces; nil: not looked for).
    func classify(_ name: String, _ observations: [(String, Double)], faces: [IndexedFace]? = nil) throws {
        try index.write(batch: [.classified(ImageClassification(
            path: path(name), size: 1234, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
            contentHash: Data(name.utf8).map { String(format: "%02x", $0) }.joined(), width: 640, height: 480, model: Self.model,
            observations: observations.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }, faces: faces))])
    }

    /// The export records of every image, with the high-precision filter.
    func records() throws -> [ExportRecord] {
        var records: [ExportRecord] = []
        try index.exportRecords(filter: .highPrecision) { records.append($0) }
        return records
    }
}
