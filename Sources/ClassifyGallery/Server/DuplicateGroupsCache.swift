import TagIndex

/// Near-duplicate groups per threshold, kept until an index run changes the photos: finding them
/// scores every pair of feature prints (seconds on a large index), while people move the
/// threshold slider back and forth. Concurrent requests for the same threshold share one run.
///
/// ```swift
/// let groups = try await cache.groups(threshold: 0.85, version: version) { try index.duplicateGroups(threshold: 0.85) }
/// ```
actor DuplicateGroupsCache {
    struct Key: Hashable, Sendable {
        var threshold: Double
        var version: IndexContentVersion
    }

    private var entries: [Key: [DuplicateGroup]] = [:]
    private var order: [Key] = []
    private let flights = SingleFlight<Key, [DuplicateGroup]>()
    /// Thresholds remembered at once.
    private let capacity = 8

    func groups(threshold: Double, version: IndexContentVersion, compute: @escaping @Sendable () async throws -> [DuplicateGroup])
        async throws -> [DuplicateGroup]
    {
        let key = Key(threshold: threshold, version: version)
        if let cached = entries[key] { return cached }
        let groups = try await flights.value(for: key, make: compute)
        entries[key] = groups
        order.removeAll { $0 == key }
        order.append(key)
        while order.count > capacity { entries[order.removeFirst()] = nil }
        // Entries of an older version can never be asked for again.
        for stale in order where stale.version != version {
            entries[stale] = nil
        }
        order.removeAll { $0.version != version }
        return groups
    }
}
