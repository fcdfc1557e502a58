import Foundation
import TagIndex

/// What the controllers share: the read-only index, the rendition cache, the page templates and
/// the bounded pools that run blocking work.
final class GalleryServices: Sendable {
    let index: TagIndex
    let databaseURL: URL
    let renditions: RenditionStore
    let pages: PageRenderer
    /// SQLite reads (searches, details, similarity scans).
    let databaseWork: BlockingWork
    let duplicates: DuplicateGroupsCache

    init(configuration: GalleryConfiguration) throws {
        index = try TagIndex(readingFrom: configuration.databaseURL)
        databaseURL = configuration.databaseURL
        databaseWork = BlockingWork(width: configuration.concurrency, label: "classify-gallery.database")
        renditions = RenditionStore(
            directory: configuration.cacheDirectory,
            work: BlockingWork(width: configuration.concurrency, label: "classify-gallery.images"))
        pages = try PageRenderer()
        duplicates = DuplicateGroupsCache()
    }

    /// Runs a blocking index read off the cooperative threads.
    func read<T: Sendable>(_ body: @escaping @Sendable (TagIndex) throws -> T) async throws -> T {
        let index = self.index
        return try await databaseWork.run { try body(index) }
    }

    /// The indexed image with `id`, or a 404.
    func image(id: Int64) async throws -> (image: IndexedImage, id: Int64) {
        let found = try await read { index -> IndexedImage? in
            guard let path = try index.imagePath(forID: id) else { return nil }
            return try index.image(atPath: path)
        }
        guard let found else { throw GalleryError(.notFound, "No indexed image has the id \(id); it may have been removed from the index.") }
        return (found, id)
    }
}
