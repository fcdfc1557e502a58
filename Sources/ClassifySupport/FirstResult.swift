/// Resumes its caller with the first result that any of several racing tasks reports; later
/// reports are dropped. For waits that must end even when the work they wait for never does (a
/// statement to a server that stopped answering): the work and a timer or watcher each report,
/// and the caller goes on with whichever comes first, leaving the other behind.
///
/// Usage:
/// ```swift
/// let value = try await FirstResult<Int>.race { first in
///     Task { first.finish(.success(try await slowWork())) }
///     Task { try? await Task.sleep(for: .seconds(5)); first.finish(.failure(TimeoutError())) }
/// }
/// ```
public final class FirstResult<Value: Sendable>: Sendable {
    private let continuation: CheckedContinuation<Value, any Error>
    private let resumed = Locked(false)

    private init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = continuation
    }

    /// Whether a result has been reported (the caller is resumed or about to be).
    public var isFinished: Bool { resumed.withLock { $0 } }

    /// Reports a result: the first one resumes the caller, later ones are ignored.
    ///
    /// Usage: `first.finish(.success(value))`
    public func finish(_ result: Result<Value, any Error>) {
        let isFirst = resumed.withLock { done in
            defer { done = true }
            return !done
        }
        if isFirst { continuation.resume(with: result) }
    }

    /// Runs `start` (which starts the racers, each reporting to the given `FirstResult`) and
    /// returns the first result reported.
    ///
    /// Usage: `let value = try await FirstResult<Int>.race { first in ... }`
    public static func race(_ start: (FirstResult<Value>) -> Void) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            start(FirstResult(continuation))
        }
    }
}
