import TagIndex

/// A search as the page's form and `/api/search` send it: `q` (the search language), `filter`,
/// `sort`, `color` and `page`, checked and turned into a ``Query``.
///
/// ```swift
/// let request = try SearchRequest(QueryParameters(uri.query), pageSize: 60)
/// ```
struct SearchRequest: Sendable {
    enum Filter: String, CaseIterable, Sendable {
        case highRecall = "high-recall"
        case highPrecision = "high-precision"
        case none
    }

    enum Sort: String, CaseIterable, Sendable {
        case score, taken, date, path
    }

    /// The longest query text accepted.
    static let maximumQueryLength = 1000

    var text: String
    /// nil: the default (high recall when the index is calibrated), as the command line does.
    var filter: Filter?
    /// nil: by score for a query, newest first for the empty query.
    var sort: Sort?
    var color: IndexedColor?
    var page: Int
    var limit: Int
    /// The page size when none is asked for: links carry `limit` only when it differs.
    var defaultLimit: Int

    init(_ parameters: QueryParameters, defaultLimit: Int) throws(GalleryError) {
        text = (parameters["q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= Self.maximumQueryLength else {
            throw GalleryError(.badRequest, "A query holds at most \(Self.maximumQueryLength) characters; this one has \(text.count).")
        }
        filter = try parameters.choice("filter", as: Filter.self)
        sort = try parameters.choice("sort", as: Sort.self)
        if let hex = parameters["color"], !hex.isEmpty {
            guard let color = IndexedColor(hex: hex) else {
                throw GalleryError(.badRequest, "color takes a hex color like 012ACF or #012acf, not '\(hex)'.")
            }
            self.color = color
        }
        page = try parameters.integer("page", in: 1...1_000_000) ?? 1
        limit = try parameters.integer("limit", in: 1...200) ?? defaultLimit
        self.defaultLimit = defaultLimit
    }

    /// The sort in effect.
    var effectiveSort: Sort { sort ?? (text.isEmpty && color == nil ? .taken : .score) }

    /// The index query (parse errors are thrown as ``QuerySyntaxError``).
    func query(facets: Int, index: any IndexBackend, places: (any PlaceNameResolver)? = PlaceNames.current) async throws -> Query {
        var query = try Query(parsing: text, places: places)
        query.page = page
        query.limit = limit
        query.facetCount = color == nil ? facets : 0
        switch effectiveSort {
        case .score: query.sort = .confidence
        case .taken: query.sort = .taken
        case .date: query.sort = .date
        case .path: query.sort = .path
        }
        switch filter {
        case .highRecall: query.calibration = query.calibration ?? .highRecall
        case .highPrecision: query.calibration = query.calibration ?? .highPrecision
        case .some(.none): break
        case nil: query.applyDefaultCalibration(indexHasCalibration: try await index.hasCalibration(), onlyWithLabelTerms: false)
        }
        return query
    }

    /// A link to this search with some parameters changed (page 1 unless `page` is given).
    func link(text: String? = nil, filter: Filter?? = nil, sort: Sort?? = nil, color: IndexedColor?? = nil, page: Int? = nil) -> String {
        let chosenFilter = filter ?? self.filter
        let chosenSort = sort ?? self.sort
        let chosenColor = color ?? self.color
        return URLQuery.link("/", [
            "q": text ?? self.text,
            "filter": chosenFilter?.rawValue,
            "sort": chosenSort?.rawValue,
            "color": chosenColor?.hex,
            "limit": limit == defaultLimit ? nil : String(limit),
            "page": page.map(String.init).flatMap { $0 == "1" ? nil : $0 },
        ])
    }
}
