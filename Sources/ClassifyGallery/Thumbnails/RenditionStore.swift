import Classify
import ClassifySupport
import Foundation
import TagIndex

/// Thumbnails and previews on disk, keyed by the content hash the index stores, so a photo moved or
/// renamed keeps its cached files, a changed photo gets new ones, and two copies share one.
///
/// Layout: `DIRECTORY/ab/abcdef0123456789-t320q78.jpg` (the hash's first two digits spread the
/// files over 256 folders). Files are written to a temporary name and renamed, so a reader never
/// sees half a file. A rendition is made at most once at a time: concurrent requests for the same
/// one wait for the first (``SingleFlight``).
///
/// ```swift
/// let store = RenditionStore(directory: cacheURL, work: BlockingWork(width: 2, label: "images"))
/// let jpeg = try await store.bytes(.thumbnail, of: image, at: .path(image.path))
/// ```
final class RenditionStore: Sendable {
    let directory: URL
    private let work: BlockingWork
    private let renderer: RenditionRenderer
    private let flights = SingleFlight<String, RenditionBytes>()
    /// How many renditions were decoded and encoded (not read from disk): for tests and logs.
    let renderCount = Locked(0)

    init(directory: URL, work: BlockingWork, renderer: RenditionRenderer = RenditionRenderer()) {
        self.directory = directory
        self.work = work
        self.renderer = renderer
    }

    /// The default cache folder: `$XDG_CACHE_HOME/classify-tool/thumbnails`, else `~/.cache/...`.
    static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }?.appending(path: ".cache")
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".cache")
        return cacheHome.appending(path: "classify-tool/thumbnails")
    }

    /// The ETag of a rendition of the content with `contentHash`.
    static func entityTag(_ rendition: Rendition, contentHash: String) -> String {
        "\"\(contentHash)-\(rendition.variant)\""
    }

    /// The rendition's bytes: from the cache, else made from the file at `file` (where the
    /// image's stored path is on this machine; and cached when the file still has the indexed
    /// content). Throws ``GalleryError`` when the file is gone, in a library root this server was
    /// not given, or cannot be decoded.
    func bytes(_ rendition: Rendition, of image: IndexedImage, at local: LocalFile) async throws -> RenditionBytes {
        guard let contentHash = image.contentHash, Self.isHash(contentHash) else {
            throw GalleryError(.notFound, "\(RawPath.displayed(image.path)) could not be read when it was indexed, so there is no picture to show.")
        }
        let file = cacheFile(rendition, contentHash: contentHash)
        if let cached = try await work.run({ try? Data(contentsOf: file) }), !cached.isEmpty {
            return RenditionBytes(bytes: Array(cached), matchesIndex: true)
        }
        guard let localPath = local.path else {
            if case .unknownRoot(let name) = local { throw GalleryError(.notFound, LocalFile.unknownRootSentence(name)) }
            throw GalleryError(.notFound, "\(RawPath.displayed(image.path)) cannot be found on this machine.")
        }
        return try await flights.value(for: file.lastPathComponent) { [work, renderer, renderCount] in
            try await work.run {
                let made: RenditionBytes
                do {
                    made = try renderer.render(
                        rendition, path: localPath, width: image.width, height: image.height, contentHash: contentHash)
                } catch let error as ImageDecodingError {
                    // A file deleted or made unreadable since indexing is gone (404); bytes that no
                    // longer decode are a broken file (422). Either way the reason is a sentence.
                    throw GalleryError(error.stage == "read" ? .notFound : .unprocessableContent, "\(RawPath.displayed(image.path)): \(error)")
                } catch let error as ImageEncodingError {
                    throw GalleryError(.unprocessableContent, "\(RawPath.displayed(image.path)): \(error)")
                }
                renderCount.withLock { $0 += 1 }
                if made.matchesIndex { Self.write(made.bytes, to: file) }
                return made
            }
        }
    }

    func cacheFile(_ rendition: Rendition, contentHash: String) -> URL {
        directory.appending(path: String(contentHash.prefix(2)), directoryHint: .isDirectory)
            .appending(path: "\(contentHash)-\(rendition.variant).jpg", directoryHint: .notDirectory)
    }

    /// Content hashes are lowercase hex; anything else never becomes part of a file name.
    static func isHash(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// Writes atomically; a cache that cannot be written (read-only home, full disk) only costs
    /// speed, so failures are ignored.
    private static func write(_ bytes: [UInt8], to file: URL) {
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appending(path: ".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try Data(bytes).write(to: temporary)
            if rename(temporary.path, file.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
