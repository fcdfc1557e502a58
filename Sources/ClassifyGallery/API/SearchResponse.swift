import Foundation
import Hummingbird
import TagIndex

/// `GET /api/search`: the shape of `classify-tool search --format json`, plus each result's id and
/// links, and the time the search took.
///
/// ```sh
/// curl 'http://127.0.0.1:8080/api/search?q=dog&sort=date&page=2'
/// ```
struct SearchResponse: ResponseCodable, Sendable {
    var query: String
    var total: Int
    var page: Int
    var pageCount: Int
    var limit: Int
    var results: [SearchResult]
    var facets: [FacetCount]
    var color: String?
    var milliseconds: Double
}

/// One search result (`results[]` of `classify-tool search --format json`, plus `id`, `url`, `thumbnail`).
struct SearchResult: Codable, Sendable {
    var id: Int64
    var url: String
    var thumbnail: String
    var path: String
    var score: Double
    var size: Int64
    var modified: String
    var width: Int?
    var height: Int?
    var error: FailureDescription?
    var labels: [LabelConfidence]

    init(hit: SearchHit, labels: [ImageLabel], thumbnail: String) {
        id = hit.imageID
        url = "/images/\(hit.imageID)"
        self.thumbnail = thumbnail
        path = hit.path
        score = GalleryJSON.rounded(hit.score)
        size = hit.size
        modified = GalleryJSON.timestamp(hit.modificationTime)
        if let width = hit.width, let height = hit.height {
            self.width = width
            self.height = height
        }
        error = hit.failureStage.map { FailureDescription(stage: $0, reason: hit.failureReason ?? "") }
        self.labels = labels.prefix(10).map(LabelConfidence.init)
    }
}

/// Why a file could not be classified.
struct FailureDescription: Codable, Sendable {
    var stage: String
    var reason: String
}

/// A label and its confidence (the label's own, or its subtree's when only a label below it was seen).
struct LabelConfidence: Codable, Sendable {
    var identifier: String
    var confidence: Double
    /// Whether the label is one of the classifier's own classes (absent in the command line's output).
    var leaf: Bool?

    init(_ label: ImageLabel) {
        identifier = label.identifier
        confidence = GalleryJSON.rounded(label.confidence ?? label.subtreeConfidence)
        leaf = label.isLeaf
    }
}

/// `facets[]`: a label and how many results carry it.
struct FacetCount: Codable, Sendable {
    var identifier: String
    var displayName: String
    var count: Int

    init(_ facet: Facet) {
        identifier = facet.identifier
        displayName = facet.displayName
        count = facet.count
    }
}

/// `GET /api/suggest?q=retr`: labels to complete the last term typed, present labels first.
struct SuggestResponse: ResponseCodable, Sendable {
    var suggestions: [Suggestion]

    struct Suggestion: Codable, Sendable {
        var identifier: String
        var displayName: String
        /// The name (identifier, display name or synonym) that matched.
        var name: String
        var images: Int
        /// A word of the search vocabulary (`beach`) rather than a label.
        var word: Bool
    }
}
