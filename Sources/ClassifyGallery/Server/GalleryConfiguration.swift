import ClassifyIndexing
import Foundation
import TagIndex

/// What a gallery serves and how.
///
/// ```swift
/// var configuration = GalleryConfiguration(location: try IndexLocation(parsing: "postgres://me@nas/photos"))
/// configuration.opener = .standard
/// configuration.roots = [try LibraryRoot(parsing: "photos=/mnt/nas/photos")]
/// configuration.port = 8080
/// ```
public struct GalleryConfiguration: Sendable {
    /// The index to show: a SQLite file (opened read-only, so `classify-tool index` can write to
    /// it meanwhile) or a database server's.
    public var location: IndexLocation
    /// Opens the index: SQLite alone unless the program passes server backends
    /// (`IndexOpener.standard` from TagIndexPostgres adds PostgreSQL).
    public var opener = IndexOpener()
    /// Named library roots: where the files stored as `NAME:/relative/path` (a shared index's
    /// named libraries) are on this machine. Absolute paths need none.
    public var roots: [LibraryRoot] = []
    /// Where thumbnails and previews are cached (default `$XDG_CACHE_HOME/classify-tool/thumbnails`).
    public var cacheDirectory: URL
    /// The address to listen on: 127.0.0.1 (this machine only) unless told otherwise.
    public var host: String
    /// The token every request must show (once in the URL, then in a cookie), else a 401. Nil on
    /// loopback; a server listening beyond it gets a fresh random one when none is given, and
    /// the URL `run` reports carries it (`?token=...`).
    public var accessToken: String?
    /// The port; 0 picks a free one (the URL printed at start says which).
    public var port: Int
    /// How many database reads (on PostgreSQL: connections) and how many image decodes run at
    /// once (default: the core count, at least 2).
    public var concurrency: Int
    /// How long a request waits for a PostgreSQL server before answering 503 (default 60 s: a
    /// near-duplicate scan of a large index takes seconds; a server cut from the network never answers).
    public var databaseDeadline: Duration = .seconds(60)
    /// Place names in the search box (`paris`, `place:paris`): the program's installed resolver,
    /// else the places file's (`PlaceNameDirectory`); nil searches places by position only.
    public var places: (any PlaceNameResolver)? = PlaceNames.current ?? PlaceNameDirectory()

    /// A configuration for the SQLite file at `databaseURL` on 127.0.0.1:8080 with the default cache folder.
    ///
    /// ```swift
    /// let configuration = GalleryConfiguration(databaseURL: url)
    /// ```
    public init(databaseURL: URL) {
        self.init(location: .sqlite(databaseURL))
    }

    /// A configuration for the index at `location` on 127.0.0.1:8080 with the default cache folder.
    ///
    /// ```swift
    /// let configuration = GalleryConfiguration(location: .postgres(descriptor))
    /// ```
    public init(location: IndexLocation) {
        self.location = location
        cacheDirectory = RenditionStore.defaultDirectory
        host = "127.0.0.1"
        port = 8080
        concurrency = max(2, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Whether `host` is reachable only from this machine (127.0.0.0/8, ::1, localhost).
    ///
    /// ```swift
    /// if !configuration.isLoopbackOnly { print("warning: anyone on the network can see the photos") }
    /// ```
    public var isLoopbackOnly: Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
