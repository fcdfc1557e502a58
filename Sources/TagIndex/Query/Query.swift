import Foundation

/// Which images a query looks at.
///
/// ```swift
/// query.filters.status = .untagged
/// ```
public enum ImageStatus: Sendable, Hashable {
    /// Successfully classified images (the default).
    case indexed
    /// Classified images with no label at or above the threshold (`untagged`).
    case untagged
    /// Files whose classification failed (`failed`).
    case failed
}

/// Filters on file facts, applied together (AND).
///
/// ```swift
/// var filters = ImageFilters()
/// filters.folders = ["/photos/2023"]
/// filters.fileTypes = ["jpg", "png"]
/// ```
public struct ImageFilters: Sendable, Hashable {
    /// Only files under each of these folders (`under:PATH`).
    public var folders: [String] = []
    /// Only these extensions, case-insensitive, without dot (`type:jpg,png`).
    public var fileTypes: [String] = []
    /// Modified at or after this date (`modified:>=2023-01-01`).
    public var modifiedAfter: Date?
    /// Modified before this date (`modified:<2024-01-01`).
    public var modifiedBefore: Date?
    /// Taken in this span of the photo's own local time (`taken:2019-06`, `after:2023-01-01`,
    /// `before:2024`); a photo whose file states no date is matched by its modification time.
    public var taken: LocalTimeRange?
    /// Taken in one of these months (1...12) of any year, the photo's own local time (`june`
    /// in a plain search); the file's time in this computer's time zone where no date is stated.
    public var takenMonths: Set<Int> = []
    /// Camera make and model together contain this text, case-insensitive (`camera:"iphone 13"`).
    public var camera: String?
    /// The lens model contains this text, case-insensitive (`lens:24-70`).
    public var lens: String?
    /// Taken within this circle (`near:48.85,2.35,10km`); photos without a position never match.
    public var near: NearbyArea?
    /// Taken at one of each entry's places (`place:paris`, `country:it`): every entry must hold.
    public var places: [[PlaceMatch]] = []
    /// Minimum width in pixels (`minwidth:1024`).
    public var minimumWidth: Int?
    /// Minimum height in pixels (`minheight:768`).
    public var minimumHeight: Int?
    /// Minimum size in bytes (`minsize:2MB`).
    public var minimumBytes: Int64?
    /// Maximum size in bytes (`maxsize:10MB`).
    public var maximumBytes: Int64?
    /// Indexed (default), untagged or failed files.
    public var status: ImageStatus = .indexed
    /// Only images whose number of stored faces is in this range (`faces:2` exactly two,
    /// `faces:2+` two or more, `faces:0` none); images on which faces were not looked for never
    /// match.
    public var faceCount: ClosedRange<Int>?

    /// The most `folders`, and the most `fileTypes`, a search accepts (100): each is a condition
    /// of one SQL expression, whose depth SQLite caps.
    ///
    /// ```swift
    /// let types = Array(requested.prefix(ImageFilters.maximumFolderOrTypeCount))
    /// ```
    public static let maximumFolderOrTypeCount = 100

    /// No filter.
    ///
    /// ```swift
    /// let none = ImageFilters()
    /// ```
    public init() {}

    package var needsImageRow: Bool {
        !folders.isEmpty || !fileTypes.isEmpty || modifiedAfter != nil || modifiedBefore != nil
            || minimumWidth != nil || minimumHeight != nil || minimumBytes != nil || maximumBytes != nil
            || status != .indexed || faceCount != nil || taken != nil || !takenMonths.isEmpty || camera != nil || lens != nil || near != nil || !places.isEmpty
    }
}

/// Result order.
///
/// ```swift
/// query.sort = .date
/// ```
public enum SortOrder: Sendable, Hashable {
    /// Highest score first (default).
    case confidence
    /// Path, ascending.
    case path
    /// Modification time, newest first.
    case date
    /// Date taken, newest first; the modification time for a photo that states none.
    case taken

    /// The date taken's sort key of `i` (an `images` row): its stored key, else its file time.
    package static let takenKey = "COALESCE((SELECT tm.taken_sort FROM image_metadata AS tm WHERE tm.image_id = i.id), i.mtime)"
}

/// A search: an expression, filters, a confidence threshold or calibrated
/// filter, an order, a page and facets.
///
/// Thresholds: a term passes a label when its confidence reaches the term's own
/// minimum (`dog:0.6`), else the global ``minimumConfidence``, and never below
/// ``SQLiteIndex/storageFloor``; with a ``calibration`` the label must also reach
/// its calibrated threshold (a label without a curve never passes).
///
/// ```swift
/// var query = try Query(parsing: "(dog OR cat) -indoor under:/photos type:jpg")
/// query.minimumConfidence = 0.3
/// query.limit = 20
/// query.facetCount = 10
/// let page = try index.search(query)
/// ```
public struct Query: Sendable, Hashable {
    /// The boolean expression; nil matches every image (then filters decide).
    public var expression: QueryExpression?
    /// Filters on the files.
    public var filters = ImageFilters()
    /// Global minimum confidence (default: the storage floor).
    public var minimumConfidence: Double?
    /// Calibrated filter applied to every label.
    public var calibration: CalibratedFilter?
    /// Result order.
    public var sort = SortOrder.confidence
    /// Results per page (1...1000).
    public var limit = 50
    /// Page number, from 1.
    public var page = 1
    /// How many facets (most frequent labels of the whole result set); 0 for none.
    public var facetCount = 0
    /// Rank by how much of this color images contain (`color:red`, or `red` in a plain search),
    /// among the images the expression and filters keep; nil for no color.
    public var color: IndexedColor?
    /// What the plain words of the query (and runs of up to ``PlainWordReading/maximumPlaceWords``
    /// of them) name as places, by their lowercased text: filled when parsing, read when searching.
    package var placeWords: [String: PlaceWord] = [:]
    /// The day `yesterday`, `last month` and the other ``RelativeDays`` count from, `yyyy-MM-dd`:
    /// today in this computer's time zone when the query was made.
    ///
    /// Usage: `query.today = "2026-11-30"`
    public var today = RelativeDays.today()

    /// Which engine answers: tests compare both on the same queries.
    /// `sql` answers in SQL only; `postings` takes the dense engine wherever it can answer, on
    /// PostgreSQL even while many blocks wait for compaction (tests compare the three).
    package enum Engine: Sendable, Hashable { case automatic, sql, postings }
    package var engine = Engine.automatic

    /// A query from an expression built in code.
    ///
    /// ```swift
    /// let query = Query(.and([.word("dog"), .not(.word("cat"))]))
    /// ```
    public init(_ expression: QueryExpression? = nil) {
        self.expression = expression
    }

    /// Parses the search language.
    ///
    /// Terms: `dog`, `golden_retriever`, `"golden retriever"`, `retriev*`,
    /// `dog:0.6`. Operators: implicit AND, `AND`, `OR`, `NOT`, `-term`,
    /// parentheses. Filters (top level only): `under:PATH`, `type:jpg,png`,
    /// `after:DATE`, `before:DATE`, `minwidth:N`, `minheight:N`, `minsize:N[KB|MB|GB]`,
    /// `maxsize:N[KB|MB|GB]`, `min:0.5`, `untagged`, `failed`, `faces:N` (exactly N faces),
    /// `faces:N+` (at least N), `faces:0`, `taken:`, `modified:`, `camera:`, `lens:`, `place:`,
    /// `country:`, `near:`, `color:`. Calibrated filters:
    /// `filter:high-precision`, `filter:high-recall`, `precision:0.9`, `recall:0.8`.
    /// An empty string matches every image.
    ///
    /// Place names (`place:`, `country:` with a name, and plain words such as `paris`) go through
    /// `places`, the installed ``PlaceNames`` resolver unless given. Plain words that name a year,
    /// month, color or place rather than a label become filters when searching (see
    /// ``PlainWordReading``).
    ///
    /// Days named from today (`yesterday`, `taken:last-year`: ``RelativeDays``) count from
    /// `today` (`yyyy-MM-dd`), this computer's today unless given.
    ///
    /// ```swift
    /// let query = try Query(parsing: "dog:0.6 -cat under:/photos")
    /// ```
    public init(
        parsing text: String, places: (any PlaceNameResolver)? = PlaceNames.current, today: String? = nil
    ) throws(QuerySyntaxError) {
        var parser = Parser(text, places: places, today: today)
        self = try parser.parse()
    }
}
