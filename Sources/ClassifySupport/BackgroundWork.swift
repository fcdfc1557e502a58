import Dispatch

/// Work that starts on another thread at once and whose result is taken later: for a synchronous
/// function with two independent slow parts, such as reading a model's label files while its
/// network compiles.
///
/// ```swift
/// let labels = BackgroundWork { () throws(ModelLoadingError) in try LabelSet(directory: directory) }
/// let graph = try compile()
/// let labelSet = try labels.value()
/// ```
public final class BackgroundWork<Value: Sendable, Failure: Error>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Value, Failure>?>(nil)

    /// Starts `work` on a global queue.
    ///
    /// ```swift
    /// let sum = BackgroundWork { () throws(Never) in (1...100).reduce(0, +) }
    /// ```
    public init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        DispatchQueue.global(qos: .userInitiated).async { [finished, outcome] in
            let result = Result<Value, Failure> { () throws(Failure) -> Value in try work() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Waits for the work to end and returns its value, or throws its error; may be called again.
    ///
    /// ```swift
    /// let value = try work.value()
    /// ```
    public func value() throws(Failure) -> Value {
        finished.wait()
        finished.signal()  // a later call does not wait
        return try outcome.withLock { $0! }.get()
    }
}
