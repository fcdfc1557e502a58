import Foundation

/// A folder being indexed and how its files are named in a shared index.
///
/// A named root (`photos=/mnt/nas/photos`) stores its files as `NAME:/relative/path`
/// (`photos:/2023/beach.jpg`), so machines that mount the same share at different places
/// (`/mnt/nas/photos`, `/Volumes/photos`) write and find the same rows. An unnamed root stores
/// absolute paths, as a SQLite index does. A library path maps back to a file only on a
/// machine that knows the root.
///
/// Usage:
/// ```swift
/// let root = try LibraryRoot(parsing: "photos=/mnt/nas/photos")
/// root.libraryPath(forLocal: "/mnt/nas/photos/2023/a.jpg")  // "photos:/2023/a.jpg"
/// root.localPath(forLibrary: "photos:/2023/a.jpg")           // "/mnt/nas/photos/2023/a.jpg"
/// ```
public struct LibraryRoot: Sendable, Hashable, CustomStringConvertible {
    /// The name shared by every machine, or nil for a root stored by its absolute path.
    public let name: String?
    /// The folder on this machine: absolute, standardized, without a trailing slash ("" for `/`).
    public let localPath: String

    /// A root from its name and folder; throws ``TagIndexError/invalidInput(_:)`` for a name that
    /// is not 1-64 letters, digits, `.`, `_` or `-` (starting with a letter or digit).
    ///
    /// Usage: `let root = try LibraryRoot(name: "photos", localPath: "/mnt/nas/photos")`
    public init(name: String?, localPath: String) throws {
        if let name {
            let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
            guard (1...64).contains(name.count), allowed, let first = name.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) else {
                throw TagIndexError.invalidInput("a library root's name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit, not '\(name)'")
            }
        }
        self.name = name
        self.localPath = IndexRun.normalizedRoot(URL(fileURLWithPath: localPath).standardizedFileURL.path)
    }

    /// `NAME=FOLDER` (a named root) or `FOLDER` (an unnamed one).
    ///
    /// Usage: `let root = try LibraryRoot(parsing: "photos=/mnt/nas/photos")`
    public init(parsing value: String) throws {
        if let equals = value.firstIndex(of: "="), !value[..<equals].contains("/") {
            let folder = String(value[value.index(after: equals)...])
            guard !folder.isEmpty else { throw TagIndexError.invalidInput("'\(value)' names no folder: NAME=FOLDER") }
            try self.init(name: String(value[..<equals]), localPath: folder)
        } else {
            try self.init(name: nil, localPath: value)
        }
    }

    /// Whether `text` is a path in a named library (`NAME:/...` or `NAME:`), which no file
    /// system path of this machine is taken for.
    ///
    /// Usage: `LibraryRoot.isLibraryPath("photos:/2023") == true`
    public static func isLibraryPath(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let rest = text[text.index(after: colon)...]
        guard rest.isEmpty || rest.hasPrefix("/") else { return false }
        return (try? LibraryRoot(name: String(text[..<colon]), localPath: "/")) != nil
    }

    /// What library paths under this root start with: `NAME:` or the local folder.
    public var libraryPrefix: String { name.map { $0 + ":" } ?? localPath }

    /// The library path of a file on this machine, or nil when it is not under this root.
    ///
    /// Usage: `root.libraryPath(forLocal: "/mnt/nas/photos/a.jpg")`
    public func libraryPath(forLocal path: String) -> String? {
        if path == localPath { return name == nil ? path : nil }
        guard path.hasPrefix(localPath + "/") else { return nil }
        return libraryPrefix + path.dropFirst(localPath.count)
    }

    /// The file on this machine for a library path, or nil when it is not under this root.
    ///
    /// Usage: `root.localPath(forLibrary: "photos:/a.jpg")`
    public func localPath(forLibrary path: String) -> String? {
        if name == nil, path == localPath { return path }
        guard path.hasPrefix(libraryPrefix + "/") else { return nil }
        return localPath + path.dropFirst(libraryPrefix.count)
    }

    /// Whether a library path is under this root (the root itself, or `[prefix/, prefix0)` in byte order).
    ///
    /// Usage: `if root.contains(libraryPath: path) { ... }`
    public func contains(libraryPath path: String) -> Bool {
        (name == nil && path == localPath) || path.hasPrefix(libraryPrefix + "/")
    }

    /// `NAME=FOLDER` or `FOLDER`.
    public var description: String { name.map { "\($0)=\(localPath.isEmpty ? "/" : localPath)" } ?? (localPath.isEmpty ? "/" : localPath) }
}

extension Array where Element == LibraryRoot {
    /// The library path of a local file under the first root that holds it.
    ///
    /// Usage: `roots.libraryPath(forLocal: path)`
    public func libraryPath(forLocal path: String) -> String? {
        lazy.compactMap { $0.libraryPath(forLocal: path) }.first
    }

    /// The local file of a library path under the first root that knows it.
    ///
    /// Usage: `roots.localPath(forLibrary: "photos:/a.jpg")`
    public func localPath(forLibrary path: String) -> String? {
        lazy.compactMap { $0.localPath(forLibrary: path) }.first
    }
}
