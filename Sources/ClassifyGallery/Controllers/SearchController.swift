import Classify
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
        /// The months, countries and towns of the whole result set (first page only).
        var whenAndWhere: WhenAndWhere?
    }

    /// Countries and towns listed beside the grid, at most.
    static let placeFacetCount = 8

    /// Runs `request`; `whenAndWhere` adds the months, countries and towns of the result set (for
    /// the page's facets and timeline bar; the JSON API leaves them out).
    func run(_ request: SearchRequest, facets: Int = facetCount, whenAndWhere wanted: Bool = false) async throws -> Outcome {
        try await services.read { index in
            let started = ContinuousClock.now
            let query = try await request.query(facets: facets, index: index, places: services.places)
            let page = if let color = request.color { try await index.search(color: color, query: query) } else { try await index.search(query) }
            let labels = try await index.labels(forImageIDs: page.hits.map(\.imageID))
            let stored = try await index.metadata(forImageIDs: page.hits.map(\.imageID))
            let metadata = PhotoMetadataReader.output(for: page.hits, stored: stored)
            // The facets beside the first page; the timeline's bar on each of its pages (a jump lands on any).
            let isTimeline = request.effectiveSort == .taken && request.color == nil
            let whenAndWhere = wanted && (facets > 0 || isTimeline)
                ? try await services.whenAndWhere.value(for: query) { try await index.whenAndWhere(query, places: Self.placeFacetCount) }
                : nil
            let milliseconds = (ContinuousClock.now - started).milliseconds
            return Outcome(page: page, labels: labels, metadata: metadata, milliseconds: milliseconds, whenAndWhere: whenAndWhere)
        }
    }

    @Sendable func page(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let search = try SearchRequest(QueryParameters(request.uri.query), defaultLimit: Self.pageSize)
        do {
            // Facets sit beside the first page; later pages (infinite scrolling) only add tiles.
            let outcome = try await run(search, facets: search.page == 1 ? Self.facetCount : 0, whenAndWhere: true)
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
    /// One year of the timeline bar: a link to its newest month, and its months.
    struct TimelineYear: Sendable {
        var year: String
        var url: String
        var months: [TimelineMonth]
    }

    /// One month of the timeline bar: a link to the page and heading where it starts.
    struct TimelineMonth: Sendable {
        var name: String
        var title: String
        var url: String
    }

    var colorHex: String?
    var clearColorURL: String
    var summary: String
    var notes: [String] = []
    var tiles: [Tile]
    var facets: [FacetLink]
    var takenFacets: [FacetLink] = []
    var placeFacets: [FacetLink] = []
    var timeline: [TimelineYear] = []
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
            // A search of plain words that were all filters (`paris 2019`) scores nothing.
            Tile(hit, labels: outcome.labels[hit.imageID] ?? [], badge: showsScores && hit.score > 0 ? LabelText.confidence(hit.score) : "")
        }
        // A label every result carries would not narrow anything.
        facets = page.facets.filter { $0.count < page.totalCount }.prefix(12).map { facet in
            FacetLink(
                name: LabelText.name(facet.identifier), count: LabelText.count(facet.count),
                url: search.link(text: (search.text + " " + facet.identifier).trimmingCharacters(in: .whitespaces)))
        }
        let milliseconds = outcome.milliseconds < 10 ? String(format: "%.1f", outcome.milliseconds) : String(format: "%.0f", outcome.milliseconds)
        // Newest taken first (asked for, or a search of plain words that left nothing to score):
        // a heading where each month starts; the library's timeline also gets its bar.
        if page.order == .taken && search.color == nil {
            var previous: String?
            var headed: Set<String> = []
            for (position, hit) in page.hits.enumerated() {
                guard let month = outcome.metadata[hit.imageID]?.taken.map({ String($0.prefix(7)) }), month != previous else { continue }
                previous = month
                if headed.insert(month).inserted, let title = Self.monthTitle(month) {
                    tiles[position].heading = Tile.Heading(id: "m-" + month, title: title)
                }
            }
            if search.effectiveSort == .taken, let whenAndWhere = outcome.whenAndWhere {
                timeline = Self.timeline(whenAndWhere.months, search: search)
            }
        }
        if let whenAndWhere = outcome.whenAndWhere, page.page == 1 {
            takenFacets = Self.takenFacets(whenAndWhere.months, total: page.totalCount, search: search)
            placeFacets = Self.placeFacets(whenAndWhere, total: page.totalCount, search: search)
        }
        notes = page.notes
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

    /// "June 2019" for `2019-06`.
    static func monthTitle(_ month: String) -> String? {
        guard let parsed = WhenAndWhere.month(month, count: 0) else { return nil }
        return PlainWords.monthNames[parsed.month - 1].capitalized + " \(parsed.year)"
    }

    /// The timeline bar: each year and its months, newest first, each linking to the page of the
    /// timeline its first photo is on, at its heading.
    static func timeline(_ months: [WhenAndWhere.MonthCount], search: SearchRequest) -> [TimelineYear] {
        var years: [TimelineYear] = []
        var before = 0
        for month in months {
            let key = String(format: "%04d-%02d", month.year, month.month)
            let url = search.link(page: before / search.limit + 1) + "#m-" + key
            let name = String(PlainWords.monthNames[month.month - 1].prefix(3)).capitalized
            let entry = TimelineMonth(name: name, title: "\(monthTitle(key) ?? key): \(LabelText.count(month.count)) photo\(month.count == 1 ? "" : "s")", url: url)
            if years.last?.year == String(month.year) {
                years[years.count - 1].months.append(entry)
            } else {
                years.append(TimelineYear(year: String(month.year), url: url, months: [entry]))
            }
            before += month.count
        }
        return years
    }

    /// Years taken, newest first, each narrowing the search to it (none when every photo is of one year).
    static func takenFacets(_ months: [WhenAndWhere.MonthCount], total: Int, search: SearchRequest) -> [FacetLink] {
        var counts: [(year: Int, count: Int)] = []
        for month in months {
            if counts.last?.year == month.year { counts[counts.count - 1].count += month.count } else { counts.append((month.year, month.count)) }
        }
        return counts.filter { $0.count < total }.map { year in
            FacetLink(name: String(year.year), count: LabelText.count(year.count), url: search.link(text: adding("taken:\(year.year)", to: search.text)))
        }
    }

    /// Countries and towns with the most photos, named from the places file (codes and ids without it).
    static func placeFacets(_ found: WhenAndWhere, total: Int, search: SearchRequest) -> [FacetLink] {
        let places = try? PlaceDirectory.shared()
        var links: [FacetLink] = []
        for country in found.countries where country.count < total {
            let name = places?.country(named: country.countryCode)?.name ?? country.countryCode
            links.append(FacetLink(
                name: name, count: LabelText.count(country.count),
                url: search.link(text: adding("country:\(country.countryCode.lowercased())", to: search.text))))
        }
        for town in found.places where town.count < total {
            guard let id = town.placeID, let place = places?.place(withID: id) else { continue }
            let quoted = place.name.contains(where: { $0 == " " || $0 == "\"" }) ? "\"\(place.name.replacingOccurrences(of: "\"", with: ""))\"" : place.name
            links.append(FacetLink(
                name: place.name, count: LabelText.count(town.count), url: search.link(text: adding("place:" + quoted, to: search.text))))
        }
        return links
    }

    private static func adding(_ term: String, to text: String) -> String {
        (text + " " + term).trimmingCharacters(in: .whitespaces)
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
