import Foundation

/// What a folder scan knows about a file before reading it: path, size and
/// modification time.
///
/// ```swift
/// let facts = FileFacts(path: "/photos/a.jpg", size: 123_456, modificationTime: Date())
/// ```
public struct FileFacts: Sendable, Hashable {
    /// Absolute, standardized path.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Modification time; compared at microsecond resolution.
    public var modificationTime: Date

    /// Creates file facts.
    ///
    /// ```swift
    /// FileFacts(path: path, size: 10, modificationTime: .now)
    /// ```
    public init(path: String, size: Int64, modificationTime: Date) {
        self.path = path
        self.size = size
        self.modificationTime = modificationTime
    }
}
