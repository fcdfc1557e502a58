import Foundation

/// One result: an image, its score and its file facts.
///
/// ```swift
/// for hit in page.hits { print(String(format: "%.2f", hit.score), hit.path) }
/// ```
public struct SearchHit: Sendable, Hashable {
    /// The image's id in the index: stable while the file stays indexed (a moved file keeps it).
    public var imageID: Int64
    /// Path of the file.
    public var path: String
    /// Score in 0...1 (see ``QueryExpression`` for how it is computed).
    public var score: Double
    /// Size in bytes.
    public var size: Int64
    /// Modification time.
    public var modificationTime: Date
    /// Width in pixels (nil for failures).
    public var width: Int?
    /// Height in pixels (nil for failures).
    public var height: Int?
    /// Failing stage, for failed files.
    public var failureStage: String?
    /// Failure reason, for failed files.
    public var failureReason: String?

    /// Memberwise, for the backends of this package.
    package init(imageID: Int64, path: String, score: Double, size: Int64, modificationTime: Date, width: Int?, height: Int?, failureStage: String?, failureReason: String?) {
        self.imageID = imageID
        self.path = path
        self.score = score
        self.size = size
        self.modificationTime = modificationTime
        self.width = width
        self.height = height
        self.failureStage = failureStage
        self.failureReason = failureReason
    }
}

/// A label and how many results carry it.
///
/// ```swift
/// for facet in page.facets { print(facet.displayName, facet.count) }
/// ```
public struct Facet: Sendable, Hashable {
    /// Label identifier.
    public var identifier: String
    /// Label display name.
    public var displayName: String
    /// Number of results on which the label passes the query's threshold.
    public var count: Int

    /// Memberwise, for the backends of this package.
    package init(identifier: String, displayName: String, count: Int) {
        self.identifier = identifier
        self.displayName = displayName
        self.count = count
    }
}

/// One page of results, the total count and the facets of the whole result set.
///
/// ```swift
/// let page = try index.search("dog")
/// print("\(page.totalCount) results, page \(page.page) of \(page.pageCount)")
/// ```
public struct SearchPage: Sendable, Hashable {
    /// The results of this page, in the query's order.
    public var hits: [SearchHit]
    /// Number of results over all pages.
    public var totalCount: Int
    /// Page number, from 1.
    public var page: Int
    /// Results per page.
    public var limit: Int
    /// Most frequent labels of the whole result set, most frequent first.
    public var facets: [Facet]
    /// How the search read words that mean two things, and how to ask for the other meaning
    /// (`'orange' is searched as a label; to rank by the color, write color:orange.`).
    public var notes: [String] = []
    /// The order the hits are in: the query's, or newest taken first where the plain words left
    /// nothing to score (`paris 2019`).
    public var order: SortOrder = .confidence

    /// Number of pages.
    ///
    /// ```swift
    /// let pages = page.pageCount
    /// ```
    public var pageCount: Int { limit > 0 ? (totalCount + limit - 1) / limit : 0 }

    /// Memberwise, for the backends of this package.
    package init(hits: [SearchHit], totalCount: Int, page: Int, limit: Int, facets: [Facet]) {
        self.hits = hits
        self.totalCount = totalCount
        self.page = page
        self.limit = limit
        self.facets = facets
    }
}
