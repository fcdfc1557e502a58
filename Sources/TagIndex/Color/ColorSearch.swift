import Foundation
import GRDB

extension SQLiteIndex {
    /// Colors farther than this (CIE76 ΔE in CIELAB) from the searched color do not count.
    ///
    /// ```swift
    /// let radius = SQLiteIndex.colorMatchRadius   // 25
    /// ```
    public static let colorMatchRadius: Double = 25

    /// The images containing the most of `color`, best first.
    ///
    /// An image scores Σ weight × max(0, 1 − ΔE / ``colorMatchRadius``) over its dominant colors:
    /// 1 for an image entirely of that color, about its share of the picture for an image partly
    /// of it, 0 (left out) without anything close. `query` narrows the candidates with a label
    /// expression and filters and gives the page.
    ///
    /// ```swift
    /// let page = try index.search(color: IndexedColor(hex: "012ACF")!, query: Query(parsing: "beach"))
    /// ```
    public func search(color: IndexedColor, query: Query = Query()) throws -> SearchPage {
        var query = query
        query.color = color
        return try search(query)
    }

    /// How much of an image (its stored dominant colors, 4 bytes each) lies within `radius` of
    /// `target` in Lab: each color's weight times its closeness. Both backends rank by it.
    package static func colorScore<Bytes: RandomAccessCollection>(_ bytes: Bytes, target: LabColor, radius: Float) -> Float
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var score: Float = 0
        var offset = bytes.startIndex
        while offset + 4 <= bytes.endIndex {
            let distance = LabColor(red: bytes[offset], green: bytes[offset + 1], blue: bytes[offset + 2]).distance(to: target)
            score += Float(bytes[offset + 3]) / 255 * max(0, 1 - distance / radius)
            offset += 4
        }
        return score
    }

    /// The stored dominant colors of an image, heaviest first (empty when none are stored).
    ///
    /// ```swift
    /// let colors = try index.dominantColors(forPath: "/photos/a.jpg")
    /// ```
    public func dominantColors(forPath path: String) throws -> [IndexedColor] {
        try database.read { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT dominant_colors FROM images WHERE path = ?", arguments: [path])
            else { return [] }
            return data.withUnsafeBytes(IndexedColor.decode)
        }
    }
}

extension Searcher {
    /// The images the query keeps, ranked by how much of `color` they contain (see
    /// ``SQLiteIndex/search(color:query:)``).
    func rankByColor(_ color: IndexedColor) throws -> SearchPage {
        guard (1...1000).contains(query.limit), query.page >= 1, query.page <= 1_000_000 else {
            throw TagIndexError.invalidInput("a page holds 1 to 1000 results and pages start at 1")
        }
        let target = LabColor(red: color.red, green: color.green, blue: color.blue)
        let radius = Float(SQLiteIndex.colorMatchRadius)
        let candidates = try matchingImageIDs()
        let offset = (query.page - 1) * query.limit
        var best = TopScores(capacity: offset + query.limit)
        var total = 0
        var next = 0
        let statement = try db.makeStatement(
            sql: "SELECT id, dominant_colors FROM images WHERE dominant_colors IS NOT NULL ORDER BY id")
        try RawScan.forEachRow(statement, arguments: []) { handle in
            let id = Int64(RawScan.int(handle, 0))
            if let candidates {
                while next < candidates.count && candidates[next] < id { next += 1 }
                guard next < candidates.count && candidates[next] == id else { return }
            }
            let score = SQLiteIndex.colorScore(RawScan.blob(handle, 1), target: target, radius: radius)
            guard score > 0 else { return }
            total += 1
            best.insert(score: min(1, score), id: id)
        }
        let ranked = best.sortedDescending().dropFirst(offset)
        let hits = try hits(ranked.map { (id: $0.id, score: Double($0.score)) })
        return SearchPage(hits: hits, totalCount: total, page: query.page, limit: query.limit, facets: [])
    }
}
