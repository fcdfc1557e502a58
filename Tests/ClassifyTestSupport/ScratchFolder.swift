import Foundation

/// A new folder under the temporary directory for one test, removed with everything in it
/// (raw byte names and unreadable modes included) when the test lets go of it.
///
/// Usage: `let scratch = try ScratchFolder("indexer"); try data.write(to: scratch.url.appending(path: "a.jpg"))`
public final class ScratchFolder: @unchecked Sendable {
    /// The folder.
    public let url: URL

    /// Creates `TMPDIR/PREFIX-UUID`.
    ///
    /// Usage: `let scratch = try ScratchFolder("indexer")`
    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appending(path: "\(prefix)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { removeTree(atPath: url.path) }
}
