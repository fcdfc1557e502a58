import ClassifySupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks files and folders and yields the image files in them, one at a time, without first
/// listing whole trees (so memory does not grow with the folder).
///
/// Folders are searched recursively. Inside folders a file is an image when its extension is one
/// of ``imageExtensions`` (any case), or, when it has none of them, when its first bytes are an
/// image signature (``ImageSignature``: a format the decoder reads, or one it recognises but cannot
/// read, which then fails with a sentence naming it; only regular files are opened for this,
/// never blocking). Files named explicitly are always yielded, since
/// the format is detected from the bytes. Any other file is a non-image: yielded as `.skipped`
/// when ``reportsSkipped`` (for counts and `--verbose` listings), else passed over. Hidden entries
/// (names starting with `.`) and entries matching ``excludes`` are passed over unless asked for.
/// Symbolic links are followed; a folder reached twice (a link loop, or two links to one place)
/// is walked once. Entries that cannot be used (a broken link, an unreadable folder, a path too
/// long to open) are yielded as problems rather than stopping the walk.
///
/// Names are bytes: a name that is not UTF-8, or holds a newline, tab or backslash, is walked like
/// any other, and its path is a ``RawPath`` string (lossless; turn it back into bytes with
/// `RawPath.bytes(of:)` or use it with `RawPath.withCString`).
///
/// ```swift
/// for entry in ImageFileWalker(roots: [URL(fileURLWithPath: "Pictures")]) {
///     if case .file(let file) = entry { print(file.path, file.size) }
/// }
/// ```
public struct ImageFileWalker: Sequence, Sendable {
    /// One image file found by the walk.
    public struct File: Sendable, Hashable {
        /// Path as reached (through links, not resolved), in ``RawPath`` form.
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
        /// A file inside a folder that is not an image (neither by extension nor by its first
        /// bytes); only when ``ImageFileWalker/reportsSkipped``.
        /// Usage: `if case .skipped(let path) = entry { print("not an image:", path) }`
        case skipped(path: String)
    }

    /// The extensions (lowercase) of the files looked at as images inside folders: JPEG, PNG,
    /// HEIF/HEIC, AVIF, WebP, TIFF, GIF and camera RAW formats.
    /// Usage: `ImageFileWalker.imageExtensions.contains("heic")`
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "heic", "heif", "hif", "avif", "webp", "tif", "tiff", "gif",
        "dng", "cr2", "cr3", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2", "raf", "pef", "srw", "x3f",
    ]

    /// Root paths, in ``RawPath`` form.
    public var roots: [String]
    public var includeHidden = false
    /// Glob patterns (`fnmatch`, e.g. `*.tmp`, `*/cache/*`); an entry is skipped when its name or its
    /// full path matches one.
    public var excludes: [String] = []
    /// Lowercase extensions yielded inside folders: every format ``ImageDecoder`` reads (the
    /// format itself is then recognised from the bytes).
    public var extensions: Set<String> = Self.imageExtensions
    /// Whether files without an image extension are opened to look for an image signature
    /// (at most 64 bytes read, never blocking). Usage: `walker.detectsSignatures = false`
    public var detectsSignatures = true
    /// Whether non-image files inside folders are yielded as `.skipped`.
    /// Usage: `var walker = ImageFileWalker(paths: roots); walker.reportsSkipped = true`
    public var reportsSkipped = false

    /// Usage: `ImageFileWalker(roots: [URL(fileURLWithPath: "Pictures")])`
    public init(roots: [URL], includeHidden: Bool = false, excludes: [String] = []) {
        self.roots = roots.map(\.path)
        self.includeHidden = includeHidden
        self.excludes = excludes
    }

    /// Usage: `ImageFileWalker(paths: ["/photos", RawPath.string(fromBytes: rawName)])`
    public init(paths: [String], includeHidden: Bool = false, excludes: [String] = []) {
        self.roots = paths
        self.includeHidden = includeHidden
        self.excludes = excludes
    }

    public func makeIterator() -> Iterator { Iterator(walker: self) }

    /// Depth-first iterator; keeps one open directory per level of the current path.
    public struct Iterator: IteratorProtocol {
        private let walker: ImageFileWalker
        private let excludes: [[UInt8]]
        private var pendingRoots: [String]
        private var stack: [(path: [UInt8], directory: OpenDirectory)] = []
        private var visitedDirectories: Set<DirectoryKey> = []

        private struct DirectoryKey: Hashable { var device: UInt64; var inode: UInt64 }

        init(walker: ImageFileWalker) {
            self.walker = walker
            excludes = walker.excludes.map(RawPath.bytes(of:))
            pendingRoots = walker.roots.reversed()
        }

        public mutating func next() -> Entry? {
            while true {
                if let top = stack.last {
                    guard let entry = readdir(top.directory.handle) else {
                        stack.removeLast()
                        continue
                    }
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
                    if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                    let path = top.path.last == UInt8(ascii: "/") ? top.path + name : top.path + [UInt8(ascii: "/")] + name
                    if let result = visit(path: path, name: name, explicit: false, parent: top.directory) { return result }
                    continue
                }
                guard let root = pendingRoots.popLast() else { return nil }
                let path = RawPath.bytes(of: root)
                let name = path.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? path
                if let result = visit(path: path, name: name, explicit: true, parent: nil) { return result }
            }
        }

        /// `parent` is the open folder holding `name` (nil for a root given by the caller).
        private mutating func visit(path: [UInt8], name: [UInt8], explicit: Bool, parent: OpenDirectory?) -> Entry? {
            if !explicit {
                if !walker.includeHidden && name.first == UInt8(ascii: ".") { return nil }
                if excludes.contains(where: { Self.matches($0, name) || Self.matches($0, path) }) { return nil }
            }
            let text = RawPath.string(fromBytes: path)
            var info = stat()
            guard Self.withCString(path, { stat($0, &info) }) == 0 else {
                let code = errno
                if code == ENAMETOOLONG {
                    // Nothing this deep can be opened by path. Say so for images and for folders
                    // (whose images would otherwise be missing without a word); skip other files.
                    let isFolder = parent.map { Self.isDirectory(name, in: $0) } ?? false
                    if !explicit && !isFolder && !hasImageExtension(name) { return nil }
                    return .problem(path: text, reason: "the path is too long for this system (\(path.count) bytes); move or rename its folders to index it")
                }
                var linkInfo = stat()
                let isLink = Self.withCString(path, { lstat($0, &linkInfo) }) == 0 && (linkInfo.st_mode & S_IFMT) == S_IFLNK
                if !explicit && !isLink && !hasImageExtension(name) { return walker.reportsSkipped ? .skipped(path: text) : nil }
                let reason = code == ELOOP ? "symbolic link loop" : isLink ? "broken symbolic link (\(String(cString: strerror(code))))" : String(cString: strerror(code))
                return .problem(path: text, reason: reason)
            }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                let key = DirectoryKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                guard visitedDirectories.insert(key).inserted else { return nil }
                guard let handle = Self.withCString(path, { opendir($0) }) else {
                    return .problem(path: text, reason: "folder cannot be read (\(String(cString: strerror(errno))))")
                }
                stack.append((path, OpenDirectory(handle: handle)))
                return nil
            }
            if !explicit && !hasImageExtension(name) && !(type == S_IFREG && hasImageSignature(path)) {
                return walker.reportsSkipped ? .skipped(path: text) : nil
            }
            return .file(File(
                path: text, size: Int64(info.st_size),
                modificationTime: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
                isRegularFile: type == S_IFREG))
        }

        /// True when `name` (raw bytes) in the open folder is a folder or a link to one.
        private static func isDirectory(_ name: [UInt8], in parent: OpenDirectory) -> Bool {
            var info = stat()
            let found = withCString(name) { fstatat(dirfd(parent.handle), $0, &info, 0) == 0 }
            return found && (info.st_mode & S_IFMT) == S_IFDIR
        }

        private static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
            (bytes + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
            }
        }

        /// `fnmatch(pattern, text)` on raw bytes.
        private static func matches(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
            withCString(pattern) { pattern in withCString(text) { fnmatch(pattern, $0, 0) == 0 } }
        }

        private func hasImageExtension(_ name: [UInt8]) -> Bool {
            guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return false }
            let suffix = name[(dot + 1)...]
            // Extensions are ASCII; a name whose suffix is not cannot have one.
            guard suffix.allSatisfy({ $0 < 0x80 }) else { return false }
            return walker.extensions.contains(String(decoding: suffix, as: UTF8.self).lowercased())
        }

        /// True when the regular file at `path` starts like an image (``ImageSignature``). Opened
        /// non-blocking (a FIFO swapped in cannot hang the walk); unreadable counts as no.
        private func hasImageSignature(_ path: [UInt8]) -> Bool {
            guard walker.detectsSignatures else { return false }
            let descriptor = Self.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var leading = [UInt8](repeating: 0, count: ImageSignature.sniffLength)
            let count = leading.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            guard count > 0 else { return false }
            // Formats recognised but not read (JPEG 2000, ...) count too: they become failed rows
            // that say so, rather than vanishing.
            return ImageSignature(leadingBytes: Array(leading.prefix(count))) != nil
        }
    }
}

/// Closes its directory stream when the walk moves on or is abandoned.
private final class OpenDirectory {
    let handle: OpaquePointer
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { closedir(handle) }
}
