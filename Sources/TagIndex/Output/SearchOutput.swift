import Foundation

/// A page of search results: `classify-tool search --format json`, and the gallery's
/// `GET /api/search` (which adds each result's links, the color searched and the time taken).
///
/// Usage: `let data = try JSONOutput.encode(SearchOutput(page: page, query: "dog", labels: labels))`
public struct SearchOutput: Codable, Sendable {
    public var query: String
    public var total: Int
    public var page: Int
    public var pageCount: Int
    public var limit: Int
    public var results: [SearchResultOutput]
    public var facets: [FacetOutput]
    /// How the search read words that mean two things (see ``SearchPage/notes``); absent when none.
    public var notes: [String]?
    /// The color searched for (`RRGGBB`), when the search was by color (gallery).
    public var color: String?
    /// How long the search took (gallery).
    public var milliseconds: Double?

    /// A page with each hit's labels (the ten most confident are written) and, in the gallery, links.
    ///
    /// Usage: `SearchOutput(page: page, query: text, labels: labelsByImageID)`
    public init(
        page: SearchPage, query: String, labels: [Int64: [ImageLabel]], metadata: [Int64: MetadataFields] = [:],
        marksLeaves: Bool = false, links: (SearchHit) -> ImageLinks? = { _ in nil }
    ) {
        self.query = query
        total = page.totalCount
        self.page = page.page
        pageCount = page.pageCount
        limit = page.limit
        results = page.hits.map { hit in
            var result = SearchResultOutput(hit: hit, labels: labels[hit.imageID] ?? [], links: links(hit), marksLeaves: marksLeaves)
            if let fields = metadata[hit.imageID] { result.setMetadata(fields) }
            return result
        }
        facets = page.facets.map(FacetOutput.init)
        notes = page.notes.isEmpty ? nil : page.notes
    }
}

/// One search result (`results[]`).
///
/// Usage: `SearchResultOutput(hit: hit, labels: labels, links: nil, marksLeaves: false)`
public struct SearchResultOutput: Codable, Sendable {
    public var id: Int64?
    public var url: String?
    public var thumbnail: String?
    public var path: String
    public var score: Double
    public var size: Int64
    public var modified: String
    public var width: Int?
    public var height: Int?
    public var error: FailureOutput?
    public var labels: [LabelConfidenceOutput]
    /// Date taken (see ``MetadataFields``). Usage: `result.taken`
    public var taken: String?
    /// Where the date came from. Usage: `result.takenFrom`
    public var takenFrom: String?
    /// Usage: `result.gps?.latitude`
    public var gps: GPSOutput?
    /// Usage: `result.camera?.model`
    public var camera: CameraOutput?
    /// Usage: `result.place?.name`
    public var place: PlaceOutput?

    /// Sets the metadata fields.
    ///
    /// Usage: `result.setMetadata(MetadataFields(stored))`
    public mutating func setMetadata(_ fields: MetadataFields) {
        (taken, takenFrom, gps, camera, place) = (fields.taken, fields.takenFrom, fields.gps, fields.camera, fields.place)
    }

    /// Usage: `SearchResultOutput(hit: hit, labels: labels, links: nil, marksLeaves: false)`
    public init(hit: SearchHit, labels: [ImageLabel], links: ImageLinks?, marksLeaves: Bool) {
        id = links?.id
        url = links?.url
        thumbnail = links?.thumbnail
        path = hit.path
        score = JSONOutput.rounded(hit.score)
        size = hit.size
        modified = JSONOutput.timestamp(hit.modificationTime)
        if let width = hit.width, let height = hit.height {
            self.width = width
            self.height = height
        }
        error = hit.failureStage.map { FailureOutput(stage: $0, reason: hit.failureReason ?? "") }
        self.labels = labels.prefix(10).map { LabelConfidenceOutput($0, marksLeaf: marksLeaves) }
    }
}

/// Why a file could not be classified.
///
/// Usage: `FailureOutput(stage: "decode", reason: "not a JPEG file")`
public struct FailureOutput: Codable, Sendable {
    public var stage: String
    public var reason: String

    /// Usage: `FailureOutput(stage: "decode", reason: "not a JPEG file")`
    public init(stage: String, reason: String) {
        self.stage = stage
        self.reason = reason
    }
}

/// A label and its confidence (the label's own, or its subtree's when only a label below it was seen).
///
/// Usage: `LabelConfidenceOutput(label, marksLeaf: false)`
public struct LabelConfidenceOutput: Codable, Sendable {
    public var identifier: String
    public var confidence: Double
    /// Whether the label is one of the classifier's own classes (gallery).
    public var leaf: Bool?
    /// `added` when the label is there because a person added it (`show`).
    public var corrected: String?

    /// Usage: `LabelConfidenceOutput(label, marksLeaf: true)`
    public init(_ label: ImageLabel, marksLeaf: Bool, corrected: String? = nil) {
        identifier = label.identifier
        confidence = JSONOutput.rounded(label.confidence ?? label.subtreeConfidence)
        leaf = marksLeaf ? label.isLeaf : nil
        self.corrected = corrected
    }
}

/// `facets[]`: a label and how many results carry it.
///
/// Usage: `FacetOutput(facet)`
public struct FacetOutput: Codable, Sendable {
    public var identifier: String
    public var displayName: String
    public var count: Int

    /// Usage: `FacetOutput(facet)`
    public init(_ facet: Facet) {
        identifier = facet.identifier
        displayName = facet.displayName
        count = facet.count
    }
}
