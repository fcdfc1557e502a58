import Foundation
import TagIndex

/// What the controllers share: the index (either backend), the library roots that map its paths
/// to this machine's files, the rendition cache, the page templates and the bounded pools that
/// run blocking work.
final class GalleryServices: Sendable {
    let index: GalleryIndex
    /// Named library roots (`NAME=FOLDER`): where files stored as `NAME:/relative/path` are here.
    let roots: [LibraryRoot]
    let renditions: RenditionStore
    /// File reads and image decodes (blocking: a photo on a network share can take a while).
    let fileWork: BlockingWork
    let pages: PageRenderer
    let duplicates: DuplicateGroupsCache
    /// The timeline's and facets' month and place counts of recent searches.
    let whenAndWhere = WhenAndWhereCache()
    /// Place names in the search box.
    let places: (any PlaceNameResolver)?

    init(configuration: GalleryConfiguration) async throws {
        index = try await GalleryIndex(
            location: configuration.location, opener: configuration.opener,
            work: BlockingWork(width: configuration.concurrency, label: "classify-gallery.database"),
            connections: configuration.concurrency, deadline: configuration.databaseDeadline)
        roots = configuration.roots
        places = configuration.places
        fileWork = BlockingWork(width: configuration.concurrency, label: "classify-gallery.images")
        renditions = RenditionStore(directory: configuration.cacheDirectory, work: fileWork)
        pages = try PageRenderer()
        duplicates = DuplicateGroupsCache()
    }

    /// Runs an index read (see ``GalleryIndex/read(_:)``).
    func read<T: Sendable>(_ body: @escaping @Sendable (any IndexBackend) async throws -> T) async throws -> T {
        try await index.read(body)
    }

    /// Runs an index write (see ``GalleryIndex/write(_:)``).
    func write<T: Sendable>(_ body: @escaping @Sendable (any IndexBackend) async throws -> T) async throws -> T {
        try await index.write(body)
    }

    /// The indexed image with `id`, or a 404.
    func image(id: Int64) async throws -> (image: IndexedImage, id: Int64) {
        let found = try await read { index -> IndexedImage? in
            guard let path = try await index.imagePath(forID: id) else { return nil }
            return try await index.image(atPath: path)
        }
        guard let found else { throw GalleryError(.notFound, "No indexed image has the id \(id); it may have been removed from the index.") }
        return (found, id)
    }

    /// Where the file of a stored path is on this machine: the path itself when it is absolute,
    /// the root's folder plus the relative path for `NAME:/relative/path`; or why it is not known.
    func localFile(_ storedPath: String) -> LocalFile {
        guard LibraryRoot.isLibraryPath(storedPath) else { return .path(storedPath) }
        if let local = roots.localPath(forLibrary: storedPath) { return .path(local) }
        let name = String(storedPath.prefix { $0 != ":" })
        return .unknownRoot(name)
    }
}

/// Where a photo's file is on the machine that serves it.
enum LocalFile: Sendable, Equatable {
    /// The file's path here.
    case path(String)
    /// The photo is in the named library root `NAME`, which the server was not given.
    case unknownRoot(String)

    /// The path, when known.
    var path: String? {
        if case .path(let path) = self { return path }
        return nil
    }

    /// The library root's name, when the server was not given it.
    var unknownRoot: String? {
        if case .unknownRoot(let name) = self { return name }
        return nil
    }

    /// Why the file cannot be shown, for a stored path in a library the server was not given.
    static func unknownRootSentence(_ name: String) -> String {
        "This photo is in the library '\(name)', which this server was not told where to find; start it with --root \(name)=FOLDER to show its pictures."
    }
}
