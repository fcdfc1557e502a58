import Foundation

/// Counts of what an index holds: `classify-tool stats --json` and the gallery's `GET /api/stats`.
///
/// Usage: `let data = try JSONOutput.encode(try await StatsOutput(index: index, location: "index.sqlite"))`
public struct StatsOutput: Codable, Sendable {
    /// The SQLite file, or the PostgreSQL URL without its password.
    public var database: String
    public var databaseBytes: Int64
    public var images: Int
    public var failed: Int
    public var labels: Int
    public var labelsInUse: Int
    public var observations: Int
    public var models: [ModelCount]
    public var faces: FaceCounts

    /// The images a model stamp produced.
    public struct ModelCount: Codable, Sendable {
        public var model: String
        public var images: Int
    }

    /// How many images were looked at for faces, how many have any, the faces found and how
    /// many of those went through recognition (`described`).
    public struct FaceCounts: Codable, Sendable {
        public var imagesScanned: Int
        public var imagesWithFaces: Int
        public var faces: Int
        public var described: Int
    }

    /// Reads the counts from any backend.
    ///
    /// Usage: `let stats = try await StatsOutput(index: index, location: location.description)`
    public init(index: any IndexBackend, location: String) async throws {
        let statistics = try await index.statistics()
        database = location
        databaseBytes = try await index.databaseBytes()
        images = statistics.imageCount
        failed = statistics.failedCount
        labels = statistics.labelCount
        labelsInUse = try await index.labelsInUseCount()
        observations = statistics.observationCount
        models = try await index.modelUsage().map { ModelCount(model: $0.model.description, images: $0.imageCount) }
        faces = FaceCounts(
            imagesScanned: statistics.faceScannedCount, imagesWithFaces: statistics.imagesWithFacesCount, faces: statistics.faceCount,
            described: statistics.describedFaceCount)
    }
}
