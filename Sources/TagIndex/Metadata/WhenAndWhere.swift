import Foundation
import GRDB

/// When and where the photos of a search were taken: how many in each month (the photo's own
/// local time, else its file's time in this computer's time zone), in each country and at each
/// town. The gallery's timeline bar and its date and place facets.
///
/// Usage: `let facets = try await index.whenAndWhere(query, places: 8); facets.months.first?.count`
public struct WhenAndWhere: Sendable, Hashable {
    /// Photos taken in one month.
    ///
    /// Usage: `"\(month.year)-\(month.month): \(month.count)"`
    public struct MonthCount: Sendable, Hashable {
        /// The year (1...9999).
        public var year: Int
        /// The month (1...12).
        public var month: Int
        /// How many photos.
        public var count: Int

        /// Usage: `WhenAndWhere.MonthCount(year: 2019, month: 6, count: 12)`
        public init(year: Int, month: Int, count: Int) {
            self.year = year
            self.month = month
            self.count = count
        }
    }

    /// Photos whose nearest place is in one country, or is one town.
    ///
    /// Usage: `"\(place.countryCode) \(place.count)"`
    public struct PlaceCount: Sendable, Hashable {
        /// The GeoNames id of the town; nil for a country's count.
        public var placeID: Int?
        /// The ISO 3166-1 code of the country.
        public var countryCode: String
        /// How many photos.
        public var count: Int

        /// Usage: `WhenAndWhere.PlaceCount(placeID: 2_988_507, countryCode: "FR", count: 3)`
        public init(placeID: Int?, countryCode: String, count: Int) {
            self.placeID = placeID
            self.countryCode = countryCode
            self.count = count
        }
    }

    /// Every month with photos, newest first.
    public var months: [MonthCount]
    /// The countries with the most photos, most first.
    public var countries: [PlaceCount]
    /// The towns with the most photos, most first.
    public var places: [PlaceCount]

    /// Usage: `WhenAndWhere(months: [], countries: [], places: [])`
    public init(months: [MonthCount], countries: [PlaceCount], places: [PlaceCount]) {
        self.months = months
        self.countries = countries
        self.places = places
    }

    /// The three counting statements over the images `scope` keeps (a condition on `images AS i`,
    /// its values bound through the binder given), written once for both databases.
    package static func statements(
        places: Int, dialect: any SQLDialect, scope: (SQLBinder) throws -> String
    ) rethrows -> [(sql: String, binder: SQLBinder)] {
        func statement(_ make: (SQLBinder, String) -> String) throws -> (String, SQLBinder) {
            let binder = SQLBinder(dialect)
            let condition = try scope(binder)
            return (make(binder, condition), binder)
        }
        let from = "FROM images AS i LEFT JOIN image_metadata AS m ON m.image_id = i.id"
        return try [
            statement { binder, scope in
                let month = "COALESCE(substr(m.taken_local, 1, 7), \(dialect.localYearMonth(ofMicroseconds: "i.mtime", binder)))"
                return "SELECT \(month) AS month, COUNT(*) \(from) WHERE \(scope) GROUP BY 1 ORDER BY 1 DESC"
            },
            statement { binder, scope in
                "SELECT m.country_code, COUNT(*) \(from) WHERE \(scope) AND m.country_code IS NOT NULL "
                    + "GROUP BY m.country_code ORDER BY 2 DESC, 1 LIMIT \(binder.bind(places))"
            },
            statement { binder, scope in
                "SELECT m.place_id, m.country_code, COUNT(*) \(from) WHERE \(scope) AND m.place_id IS NOT NULL "
                    + "GROUP BY m.place_id, m.country_code ORDER BY 3 DESC, 1 LIMIT \(binder.bind(places))"
            },
        ]
    }

    /// The month of a `YYYY-MM` text; nil for anything else.
    package static func month(_ text: String, count: Int) -> MonthCount? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month) else { return nil }
        return MonthCount(year: year, month: month, count: count)
    }
}

extension SQLiteIndex {
    /// When and where the photos `query` finds were taken (its page, order and facets aside): every
    /// month, and the `places` countries and towns with the most photos.
    ///
    /// ```swift
    /// let facets = try index.whenAndWhere(Query(parsing: "dog"), places: 8)
    /// ```
    public func whenAndWhere(_ query: Query, places: Int = 10) throws -> WhenAndWhere {
        try guardingStorage {
            try database.read { db in
                let (searcher, _) = try Searcher.reading(db: db, taxonomy: try taxonomy(db), query: query)
                return try searcher.withMatchingSet { dialect, matching in
                    let statements = try WhenAndWhere.statements(places: max(0, places), dialect: dialect) { binder in
                        try matching(binder).map { "i.id IN (\($0))" } ?? "i.error_stage IS NULL"
                    }
                    func rows(_ index: Int) throws -> [Row] {
                        try Row.fetchAll(db, sql: statements[index].sql, arguments: statements[index].binder.statementArguments)
                    }
                    return WhenAndWhere(
                        months: try rows(0).compactMap { row in (row[0] as String?).flatMap { WhenAndWhere.month($0, count: row[1]) } },
                        countries: try rows(1).map { WhenAndWhere.PlaceCount(placeID: nil, countryCode: $0[0], count: $0[1]) },
                        places: try rows(2).map { WhenAndWhere.PlaceCount(placeID: $0[0], countryCode: $0[1], count: $0[2]) })
                }
            }
        }
    }
}
