import ClassifySupport

/// Waits for `body` at most `limit`, then throws `expired()`'s error and leaves `body` behind
/// (cancelled, its result unused).
///
/// A task group cannot do this: it waits for its children, and a statement sent to a server that
/// stopped answering (powered off, cut from the network: no reset ever comes) does not end when
/// cancelled. So the caller is resumed by whichever comes first, the body or the timer.
///
/// ```swift
/// let page = try await withDeadline(.seconds(60), expired: { GalleryError(.serviceUnavailable, "no answer") }) {
///     try await index.search(query)
/// }
/// ```
func withDeadline<T: Sendable>(
    _ limit: Duration, expired: @escaping @Sendable () -> any Error, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await FirstResult<T>.race { first in
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { first.finish(.failure(expired())) }
        }
        let work = Task {
            do { first.finish(.success(try await body())) } catch { first.finish(.failure(error)) }
            timer.cancel()
        }
        // When the timer wins, the work is told to stop (it may not listen).
        Task {
            _ = await timer.result
            if first.isFinished { work.cancel() }
        }
    }
}
