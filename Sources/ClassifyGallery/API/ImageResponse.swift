import Foundation
import Hummingbird
import TagIndex

/// `GET /api/images/{id}`: the shape of `classify-tool show --format json`, plus the id, the
/// format, the dominant colors and links.
struct ImageResponse: ResponseCodable, Sendable {
    var id: Int64
    var path: String
    var size: Int64
    var modified: String
    var indexed: String
    var hasFeaturePrint: Bool
    var contentHash: String?
    var width: Int?
    var height: Int?
    var model: String?
    var format: String?
    var error: FailureDescription?
    var labels: [LabelConfidence]
    var colors: [ColorShare]
    /// The stored faces, highest confidence first; nil when faces were not looked for.
    var faces: [FaceBox]?
    var thumbnail: String
    var preview: String
}

/// A stored face: its box in pixels of the upright image (top-left origin) and confidence, as
/// `classify-tool show --format json` gives it.
struct FaceBox: Codable, Sendable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var confidence: Double

    init(_ face: IndexedFace) {
        x = GalleryJSON.rounded(face.x); y = GalleryJSON.rounded(face.y)
        width = GalleryJSON.rounded(face.width); height = GalleryJSON.rounded(face.height)
        confidence = GalleryJSON.rounded(face.confidence)
    }
}

/// A dominant color and the share of the picture it covers.
struct ColorShare: Codable, Sendable {
    /// `RRGGBB`.
    var hex: String
    var weight: Double

    init(_ color: IndexedColor) {
        hex = color.hex
        weight = GalleryJSON.rounded(color.weight)
    }
}

/// `GET /api/images/{id}/similar`: the shape of `classify-tool similar --format json`, plus ids.
struct SimilarResponse: ResponseCodable, Sendable {
    var total: Int
    var page: Int
    var pageCount: Int
    var limit: Int
    var results: [ImageSummary]
}

/// `GET /api/duplicates`: the shape of `classify-tool duplicates --format json`
/// (`[{keeper, members: [...]}]`), plus ids, wrapped with the threshold used.
struct DuplicatesResponse: ResponseCodable, Sendable {
    var threshold: Double
    var groups: [Group]
    var milliseconds: Double

    struct Group: Codable, Sendable {
        var keeper: String
        var keeperID: Int64
        var members: [ImageSummary]
    }
}

/// An image with a score, as `similar` and `duplicates` list them, plus its id and links.
struct ImageSummary: Codable, Sendable {
    var id: Int64
    var url: String
    var thumbnail: String
    var path: String
    var score: Double
    var size: Int64
    var width: Int?
    var height: Int?

    init(id: Int64, path: String, score: Double, size: Int64, width: Int?, height: Int?, thumbnail: String) {
        self.id = id
        url = "/images/\(id)"
        self.thumbnail = thumbnail
        self.path = path
        self.score = GalleryJSON.rounded(score)
        self.size = size
        self.width = width
        self.height = height
    }
}

/// `GET /api/labels`: the shape of `classify-tool labels --format json` (without WordNet ids,
/// which the index does not keep), plus children.
struct LabelResponse: Codable, Sendable {
    var identifier: String
    var displayName: String
    var parents: [String]
    var children: [String]
    var synonyms: [String]
    var classes: Int
    var images: Int

    init(_ label: CatalogLabel) {
        identifier = label.identifier
        displayName = label.displayName
        parents = label.parents
        children = label.children
        synonyms = label.synonyms
        classes = label.classCount
        images = label.imageCount
    }
}

/// `GET /api/stats`: the shape of `classify-tool stats --json`.
struct StatsResponse: ResponseCodable, Sendable {
    var database: String
    var databaseBytes: Int64
    var images: Int
    var failed: Int
    var labels: Int
    var labelsInUse: Int
    var observations: Int
    var models: [ModelCount]

    struct ModelCount: Codable, Sendable {
        var model: String
        var images: Int
    }
}
