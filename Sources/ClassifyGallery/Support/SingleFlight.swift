/// Coalesces concurrent requests for the same key: the first caller starts the work, the others
/// wait for its result, so a thumbnail is made once however many requests ask for it at once.
/// The key is forgotten when the work ends (success or failure); caching is the caller's job.
///
/// ```swift
/// let flights = SingleFlight<String, [UInt8]>()
/// let bytes = try await flights.value(for: hash) { try await makeThumbnail(hash) }
/// ```
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var inFlight: [Key: Task<Value, any Error>] = [:]

    /// The result of `make` for `key`, shared with every caller that asks while it runs.
    func value(for key: Key, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let running = inFlight[key] { return try await running.value }
        let task = Task { try await make() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
