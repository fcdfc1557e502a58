import ClassifyIndexing
import Foundation
import Hummingbird
import TagIndex

/// The search page (`/`), `GET /api/search` and `GET /api/suggest`.
///
/// The page works without JavaScript (a form, links for facets and pages); the script adds
/// suggestions while typing, the color picker and infinite scrolling.
struct SearchController: Sendable {
    let services: GalleryServices
    /// Results per page on the page (divisible by 2, 3, 4, 5 and 6 columns).
    static let pageSize = 60
    /// Facets asked for; those every result carries are left out of the page, which shows 12.
    static let facetCount = 20

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/", use: page)
        router.get("/api/search", use: api)
        router.get("/api/suggest", use: suggest)
    }

    /// What one search found, with the labels of each hit, and how long it took.
    struct Outcome: Sendable {
        var page: SearchPage
        var labels: [Int64: [ImageLabel]]
        /// Date taken, position, camera and place of each hit (the file time standing in for a date).
        var metadata: [Int64: MetadataFields] = [:]
        var milliseconds: Double
    }

    func run(_ request: SearchRequest, facets: Int = facetCount) async throws -> Outcome {
        try await services.read { index in
            let started = ContinuousClock.now
            let query = try await request.query(facets: facets, index: index)
            let page = if let color = request.color { try await index.search(color: color, query: query) } else { try await index.search(query) }
            let labels = try await index.labels(forImageIDs: page.hits.map(\.imageID))
            let stored = try await index.metadata(forImageIDs: page.hits.map(\.imageID))
            let reader = stored.isEmpty ? PhotoMetadataReader(places: nil) : PhotoMetadataReader.shared
            let metadata = Dictionary(page.hits.map { hit in
                (hit.imageID, reader.fields(stored[hit.imageID], modified: hit.failureStage == nil ? hit.modificationTime : nil))
            }, uniquingKeysWith: { first, _ in first })
            let milliseconds = (ContinuousClock.now - started).milliseconds
            return Outcome(page: page, labels: labels, metadata: metadata, milliseconds: milliseconds)
        }
    }

    @Sendable func page(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let search = try SearchRequest(QueryParameters(request.uri.query), defaultLimit: Self.pageSize)
        do {
            // Facets sit beside the first page; later pages (infinite scrolling) only add tiles.
            let outcome = try await run(search, facets: search.page == 1 ? Self.facetCount : 0)
            return services.pages.response("search", SearchView(search: search, outcome: outcome))
        } catch {
            let problem = GalleryError.from(error)
            guard problem.status == .badRequest else { throw error }
            // A malformed query or an unknown label: the page again, with the message and the
            // suggestions as links, so the person can fix it where they typed it.
            return services.pages.response("search", SearchView(search: search, problem: problem), status: .badRequest)
        }
    }

    @Sendable func api(_ request: Request, context: GalleryRequestContext) async throws -> SearchOutput {
        let search = try SearchRequest(QueryParameters(request.uri.query), defaultLimit: 50)
        let outcome = try await run(search)
        var output = SearchOutput(page: outcome.page, query: search.text, labels: outcome.labels, metadata: outcome.metadata, marksLeaves: true) { hit in
            ImageLinks(id: hit.imageID, thumbnail: Tile.thumbnailLink(id: hit.imageID, size: hit.size, modified: hit.modificationTime))
        }
        output.color = search.color?.hex
        output.milliseconds = (outcome.milliseconds * 100).rounded() / 100
        return output
    }

    @Sendable func suggest(_ request: Request, context: GalleryRequestContext) async throws -> SuggestResponse {
        let parameters = try QueryParameters(request.uri.query)
        let prefix = String((parameters["q"] ?? "").prefix(100))
        let limit = try parameters.integer("limit", in: 1...50) ?? 8
        let completions = try await services.read { try await $0.labelCompletions(forPrefix: prefix, limit: limit) }
        return SuggestResponse(suggestions: completions.map {
            .init(identifier: $0.identifier, displayName: $0.displayName, name: $0.matchedName, images: $0.imageCount, word: $0.isVocabularyWord)
        })
    }
}

/// What the search page shows.
struct SearchView: PageView {
    struct Option: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    struct FacetLink: Sendable {
        var name: String
        var count: String
        var url: String
    }

    struct Suggestion: Sendable {
        var name: String
        var url: String
    }

    var title: String
    let section = "search"
    var query: String
    var filters: [Option]
    var sorts: [Option]
    var colorHex: String?
    var clearColorURL: String
    var summary: String
    var tiles: [Tile]
    var facets: [FacetLink]
    var message: String?
    var suggestions: [Suggestion]
    var previousURL: String?
    var nextURL: String?
    var pageText: String
    var isEmpty: Bool
    var emptyText: String

    init(search: SearchRequest, outcome: SearchController.Outcome) {
        self.init(search: search)
        let page = outcome.page
        // Scores mean something for a query or a color, not for the whole library by date.
        let showsScores = search.effectiveSort == .score && !search.text.isEmpty || search.color != nil
        tiles = page.hits.map { hit in
            Tile(hit, labels: outcome.labels[hit.imageID] ?? [], badge: showsScores ? LabelText.confidence(hit.score) : "")
        }
        // A label every result carries would not narrow anything.
        facets = page.facets.filter { $0.count < page.totalCount }.prefix(12).map { facet in
            FacetLink(
                name: LabelText.name(facet.identifier), count: LabelText.count(facet.count),
                url: search.link(text: (search.text + " " + facet.identifier).trimmingCharacters(in: .whitespaces)))
        }
        let milliseconds = outcome.milliseconds < 10 ? String(format: "%.1f", outcome.milliseconds) : String(format: "%.0f", outcome.milliseconds)
        summary = "\(LabelText.count(page.totalCount)) photo\(page.totalCount == 1 ? "" : "s") · \(milliseconds) ms"
        if page.page > 1 { previousURL = search.link(page: page.page - 1) }
        if page.page < page.pageCount { nextURL = search.link(page: page.page + 1) }
        pageText = page.pageCount > 1 ? "Page \(page.page) of \(LabelText.count(page.pageCount))" : ""
        isEmpty = page.hits.isEmpty
        if page.hits.isEmpty {
            emptyText = page.totalCount > 0
                ? "Page \(page.page) is past the last page (\(page.pageCount))."
                : "No photo matches. Try fewer words, another filter, or a label from the Labels page."
        }
    }

    init(search: SearchRequest, problem: GalleryError) {
        self.init(search: search)
        message = problem.message
        if let term = problem.term {
            suggestions = problem.suggestions.map { name in
                Suggestion(name: name, url: search.link(text: Self.replacing(term, at: problem.offset, with: name, in: search.text)))
            }
        }
        isEmpty = false
    }

    private init(search: SearchRequest) {
        title = search.text.isEmpty ? "Photos" : search.text
        query = search.text
        filters = [
            Option(value: "", label: "High recall (default)", selected: search.filter == nil),
            Option(value: "high-precision", label: "High precision", selected: search.filter == .highPrecision),
            Option(value: "none", label: "Every stored label", selected: search.filter == SearchRequest.Filter.none),
        ]
        if search.filter == .highRecall { filters[0].selected = true }
        // "Best match" is automatic: by score for a query, newest taken first for the whole library.
        sorts = [
            Option(value: "", label: "Best match", selected: search.sort == nil || search.sort == .score),
            Option(value: "taken", label: "Newest taken first", selected: search.sort == .taken),
            Option(value: "date", label: "Newest modified first", selected: search.sort == .date),
            Option(value: "path", label: "By folder", selected: search.sort == .path),
        ]
        colorHex = search.color?.hex
        clearColorURL = search.link(color: .some(nil))
        summary = ""
        tiles = []
        facets = []
        suggestions = []
        pageText = ""
        isEmpty = false
        emptyText = ""
    }

    /// `text` with `term` (at character `offset` when known) replaced by `name`.
    static func replacing(_ term: String, at offset: Int?, with name: String, in text: String) -> String {
        let characters = Array(text)
        if let offset, offset >= 0, offset + term.count <= characters.count,
            String(characters[offset..<offset + term.count]) == term
        {
            return String(characters[..<offset]) + name + String(characters[(offset + term.count)...])
        }
        guard let range = text.range(of: term) else { return text }
        return text.replacingCharacters(in: range, with: name)
    }
}
