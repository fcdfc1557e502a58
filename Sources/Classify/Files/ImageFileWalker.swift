import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks files and folders and yields the image files in them, one at a time, without first
/// listing whole trees (so memory does not grow with the folder).
///
/// Folders are searched recursively. Inside folders only files with an image extension are
/// yielded (`jpg`, `jpeg`, `jpe`, `jfif`, `png`, any case); files named explicitly are always
/// yielded, since the format is detected from the bytes. Hidden entries (names starting with `.`)
/// are skipped unless `includeHidden`. Symbolic links are followed; a folder reached twice (a
/// link loop, or two links to one place) is walked once. Entries that cannot be used (a broken
/// link, an unreadable folder, an image or folder whose name is not valid UTF-8 or whose path is
/// too long to open) are yielded as problems rather than stopping the walk; other files with such
/// names are skipped like any non-image file.
///
/// ```swift
/// for entry in ImageFileWalker(roots: [URL(fileURLWithPath: "Pictures")]) {
///     if case .file(let file) = entry { print(file.path, file.size) }
/// }
/// ```
public struct ImageFileWalker: Sequence, Sendable {
    /// One image file found by the walk.
    public struct File: Sendable, Hashable {
        /// Path as reached (through links, not resolved).
        public var path: String
        public var size: Int64
        /// Modification time, seconds since 1970 (with sub-second precision where the system has it).
        public var modificationTime: Double
        /// False for FIFOs, devices and the like, which are yielded so the caller can report them.
        public var isRegularFile: Bool
    }

    /// What the walk yields.
    public enum Entry: Sendable, Hashable {
        case file(File)
        /// A path that could not be walked or used, and why.
        case problem(path: String, reason: String)
    }

    public var roots: [String]
    public var includeHidden = false
    /// Glob patterns (`fnmatch`, e.g. `*.tmp`, `*/cache/*`); an entry is skipped when its name or its
    /// full path matches one.
    public var excludes: [String] = []
    /// Lowercase extensions yielded inside folders: every format ``ImageDecoder`` reads (the
    /// format itself is then recognised from the bytes).
    public var extensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "heic", "heif", "hif", "avif", "webp", "tif", "tiff", "gif",
        "dng", "cr2", "cr3", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2", "raf", "pef", "srw", "x3f",
    ]

    public init(roots: [URL], includeHidden: Bool = false, excludes: [String] = []) {
        self.roots = roots.map(\.path)
        self.includeHidden = includeHidden
        self.excludes = excludes
    }

    public init(paths: [String], includeHidden: Bool = false, excludes: [String] = []) {
        self.roots = paths
        self.includeHidden = includeHidden
        self.excludes = excludes
    }

    public func makeIterator() -> Iterator { Iterator(walker: self) }

    /// Depth-first iterator; keeps one open directory per level of the current path.
    public struct Iterator: IteratorProtocol {
        private let walker: ImageFileWalker
        private var pendingRoots: [String]
        private var stack: [(path: String, directory: OpenDirectory)] = []
        private var visitedDirectories: Set<DirectoryKey> = []

        private struct DirectoryKey: Hashable { var device: UInt64; var inode: UInt64 }

        init(walker: ImageFileWalker) {
            self.walker = walker
            pendingRoots = walker.roots.reversed()
        }

        public mutating func next() -> Entry? {
            while true {
                if let top = stack.last {
                    guard let entry = readdir(top.directory.handle) else {
                        stack.removeLast()
                        continue
                    }
                    let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if name == "." || name == ".." { continue }
                    let path = top.path.hasSuffix("/") ? top.path + name : top.path + "/" + name
                    if String(validating: nameBytes, as: UTF8.self) == nil {
                        if !walker.includeHidden && nameBytes.first == UInt8(ascii: ".") { continue }
                        // Paths are Strings from here on, so such a name cannot be opened later. Report
                        // only what the walk would have used (images and folders); skip other files.
                        if Self.isDirectory(nameBytes, in: top.directory) {
                            return .problem(path: path, reason: "the folder name is not valid UTF-8; rename the folder to index the images in it")
                        }
                        if hasImageExtension(name) {
                            return .problem(path: path, reason: "the file name is not valid UTF-8; rename the file to index it")
                        }
                        continue
                    }
                    if let result = visit(path: path, name: name, explicit: false, parent: top.directory) { return result }
                    continue
                }
                guard let root = pendingRoots.popLast() else { return nil }
                let name = (root as NSString).lastPathComponent
                if let result = visit(path: root, name: name, explicit: true, parent: nil) { return result }
            }
        }

        /// `parent` is the open folder holding `name` (nil for a root given by the caller).
        private mutating func visit(path: String, name: String, explicit: Bool, parent: OpenDirectory?) -> Entry? {
            if !explicit {
                if !walker.includeHidden && name.hasPrefix(".") { return nil }
                if walker.excludes.contains(where: { fnmatch($0, name, 0) == 0 || fnmatch($0, path, 0) == 0 }) { return nil }
            }
            var info = stat()
            guard stat(path, &info) == 0 else {
                let code = errno
                if code == ENAMETOOLONG {
                    // Nothing this deep can be opened by path. Say so for images and for folders
                    // (whose images would otherwise be missing without a word); skip other files.
                    let isFolder = parent.map { Self.isDirectory(Array(name.utf8), in: $0) } ?? false
                    if !explicit && !isFolder && !hasImageExtension(name) { return nil }
                    return .problem(path: path, reason: "the path is too long for this system (\(path.utf8.count) bytes); move or rename its folders to index it")
                }
                var linkInfo = stat()
                let isLink = lstat(path, &linkInfo) == 0 && (linkInfo.st_mode & S_IFMT) == S_IFLNK
                if !explicit && !isLink && !hasImageExtension(name) { return nil }
                let reason = code == ELOOP ? "symbolic link loop" : isLink ? "broken symbolic link (\(String(cString: strerror(code))))" : String(cString: strerror(code))
                return .problem(path: path, reason: reason)
            }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                let key = DirectoryKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                guard visitedDirectories.insert(key).inserted else { return nil }
                guard let handle = opendir(path) else {
                    return .problem(path: path, reason: "folder cannot be read (\(String(cString: strerror(errno))))")
                }
                stack.append((path, OpenDirectory(handle: handle)))
                return nil
            }
            if !explicit && !hasImageExtension(name) { return nil }
            return .file(File(
                path: path, size: Int64(info.st_size),
                modificationTime: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
                isRegularFile: type == S_IFREG))
        }

        /// True when `name` (raw bytes) in the open folder is a folder or a link to one.
        private static func isDirectory(_ name: [UInt8], in parent: OpenDirectory) -> Bool {
            var info = stat()
            let found = (name + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { fstatat(dirfd(parent.handle), $0.baseAddress!, &info, 0) == 0 }
            }
            return found && (info.st_mode & S_IFMT) == S_IFDIR
        }

        private func hasImageExtension(_ name: String) -> Bool {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
            return walker.extensions.contains(name[name.index(after: dot)...].lowercased())
        }
    }
}

/// Closes its directory stream when the walk moves on or is abandoned.
private final class OpenDirectory {
    let handle: OpaquePointer
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { closedir(handle) }
}
