import Foundation

/// A value guarded by a lock, for state shared between tasks and threads.
///
/// It plays the part of the standard library's `Mutex`, with one difference that matters here:
/// it locks with `pthread_mutex` (through `NSLock`), which ThreadSanitizer understands. On Linux
/// `Mutex` locks inside the uninstrumented standard library, so ThreadSanitizer cannot see its
/// ordering and reports every access it protects as a race, which would hide real ones.
///
/// ```swift
/// let pool = Locked<[Buffer]>([])
/// let buffer = pool.withLock { $0.popLast() } ?? Buffer()
/// ```
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    /// Guards `value`.
    ///
    /// ```swift
    /// let counts = Locked([String: Int]())
    /// ```
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    ///
    /// ```swift
    /// let count = pool.withLock { $0.count }
    /// ```
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value when nobody holds it; nil, without
    /// waiting, when somebody does.
    ///
    /// ```swift
    /// if pool.withLockIfAvailable({ $0.flush() }) == nil { /* the holder will see it */ }
    /// ```
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
