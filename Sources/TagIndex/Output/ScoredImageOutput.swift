import Foundation

/// An image with a score, as `similar` and `duplicates` list them (gallery: with its links).
///
/// Usage: `ScoredImageOutput(hit: hit, links: nil)`
public struct ScoredImageOutput: Codable, Sendable {
    public var id: Int64?
    public var url: String?
    public var thumbnail: String?
    public var path: String
    public var score: Double
    public var size: Int64
    public var width: Int?
    public var height: Int?

    /// Usage: `ScoredImageOutput(hit: hit, links: nil)`
    public init(hit: SearchHit, links: ImageLinks?) {
        self.init(path: hit.path, score: hit.score, size: hit.size, width: hit.width, height: hit.height, links: links)
    }

    /// Usage: `ScoredImageOutput(member: member, links: nil)`
    public init(member: DuplicateMember, links: ImageLinks?) {
        self.init(path: member.path, score: member.score, size: member.size, width: member.width, height: member.height, links: links)
    }

    private init(path: String, score: Double, size: Int64, width: Int?, height: Int?, links: ImageLinks?) {
        id = links?.id
        url = links?.url
        thumbnail = links?.thumbnail
        self.path = path
        self.score = JSONOutput.rounded(score)
        self.size = size
        if let width, let height {
            self.width = width
            self.height = height
        }
    }
}

/// A page of similar images: `classify-tool similar --format json` and the gallery's
/// `GET /api/images/{id}/similar`.
///
/// Usage: `let data = try JSONOutput.encode(SimilarOutput(page: page))`
public struct SimilarOutput: Codable, Sendable {
    public var total: Int
    public var page: Int
    public var pageCount: Int
    public var limit: Int
    public var results: [ScoredImageOutput]

    /// Usage: `SimilarOutput(page: page) { hit in nil }`
    public init(page: SearchPage, links: (SearchHit) -> ImageLinks? = { _ in nil }) {
        total = page.totalCount
        self.page = page.page
        pageCount = page.pageCount
        limit = page.limit
        results = page.hits.map { ScoredImageOutput(hit: $0, links: links($0)) }
    }
}

/// A group of near-duplicates, the one to keep first: one element of `classify-tool duplicates
/// --format json`, and of the gallery's `GET /api/duplicates` `groups` (with the keeper's id).
///
/// Usage: `DuplicateGroupOutput(group)`
public struct DuplicateGroupOutput: Codable, Sendable {
    public var keeper: String
    public var keeperID: Int64?
    public var members: [ScoredImageOutput]

    /// Usage: `DuplicateGroupOutput(group) { member in nil }`
    public init(_ group: DuplicateGroup, links: (DuplicateMember) -> ImageLinks? = { _ in nil }) {
        keeper = group.keeper.path
        keeperID = links(group.keeper)?.id
        members = group.members.map { ScoredImageOutput(member: $0, links: links($0)) }
    }
}

/// A pair of similar images (`classify-tool duplicates --pairs --format json`).
///
/// Usage: `SimilarPairOutput(pair)`
public struct SimilarPairOutput: Codable, Sendable {
    public var score: Double
    public var first: String
    public var second: String

    /// Usage: `SimilarPairOutput(pair)`
    public init(_ pair: SimilarPair) {
        score = JSONOutput.rounded(pair.score)
        first = pair.first
        second = pair.second
    }
}
