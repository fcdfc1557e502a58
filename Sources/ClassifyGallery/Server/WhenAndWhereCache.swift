import Foundation
import TagIndex

/// The months, countries and towns of recent searches, kept for ``lifetime``: each page of the
/// timeline shows the whole library's months, and infinite scrolling asks for page after page
/// within seconds. Counting them reads every classified image's date (about 0.1 s at 100,000);
/// a run that adds photos shows in the bar at most ``lifetime`` later.
///
/// ```swift
/// let facets = try await cache.value(for: query) { try await index.whenAndWhere(query, places: 8) }
/// ```
actor WhenAndWhereCache {
    /// How long a count is reused.
    static let lifetime: Duration = .seconds(30)
    /// Searches remembered at once.
    static let capacity = 32

    private var entries: [Query: (value: WhenAndWhere, at: ContinuousClock.Instant)] = [:]

    /// The counts of `query` (its page, order and facets aside): remembered, or computed by `compute`.
    func value(for query: Query, compute: @Sendable () async throws -> WhenAndWhere) async throws -> WhenAndWhere {
        var key = query
        (key.page, key.limit, key.sort, key.facetCount) = (1, 1, .confidence, 0)
        let now = ContinuousClock.now
        if let entry = entries[key], now - entry.at < Self.lifetime { return entry.value }
        let value = try await compute()
        entries = entries.filter { ContinuousClock.now - $0.value.at < Self.lifetime }
        if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key { entries[oldest] = nil }
        entries[key] = (value, ContinuousClock.now)
        return value
    }
}
