import Foundation

/// Opens an index wherever its ``IndexLocation`` says it is, through one call whatever the
/// database: a SQLite file always, a database server through the ``IndexServer`` backends a
/// program links (the module TagIndexPostgres adds PostgreSQL: `IndexOpener.standard`).
///
/// A program that embeds only TagIndex keeps SQLite alone and never compiles a network stack;
/// a PostgreSQL location then fails with an error that says what is missing.
///
/// Usage:
/// ```swift
/// let index = try await IndexOpener().open(.sqlite(url))
/// let page = try await index.search(try Query(parsing: "dog"))
/// ```
public struct IndexOpener: Sendable {
    /// The server backends, asked in order which of them opens a location.
    public var servers: [any IndexServer]

    /// Usage: `let opener = IndexOpener(servers: [PostgresServer()])`
    public init(servers: [any IndexServer] = []) {
        self.servers = servers
    }

    /// Opens an existing index for reading and corrections: a SQLite file read-write, a server's
    /// database on a connection of its own.
    ///
    /// Usage: `let index = try await opener.open(location)`
    public func open(_ location: IndexLocation) async throws -> any IndexBackend {
        switch location {
        case .sqlite(let url): return try SQLiteIndex(url: url)
        default: return try await server(for: location).open(location)
        }
    }

    /// Opens an existing index for reading only (a SQLite file is never written, not even its
    /// journal mode; a server's database as ``open(_:)``).
    ///
    /// Usage: `let index = try await opener.openForReading(location)`
    public func openForReading(_ location: IndexLocation) async throws -> any IndexBackend {
        switch location {
        case .sqlite(let url): return try SQLiteIndex(readingFrom: url)
        default: return try await server(for: location).open(location)
        }
    }

    /// Opens the index at `location` for index runs: a SQLite file (created with its folder when
    /// there is none) that one run at a time writes, or a server's database that many indexers
    /// fill at once. Either is an ``IndexWriter``.
    ///
    /// Usage: `let writer = try opener.openForIndexing(location)`
    public func openForIndexing(_ location: IndexLocation) throws -> any IndexWriter {
        switch location {
        case .sqlite(let url):
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            return try SQLiteIndex(url: url)
        default:
            return try server(for: location).writer(at: location)
        }
    }

    /// The index at `location` as the target of a copy (``IndexCopy``): a new SQLite file, or a
    /// server's empty database. Nothing is created or connected until the copy starts.
    ///
    /// Usage: `let copied = try await IndexCopy.copy(from: try await opener.openForReading(from), to: try opener.copyTarget(to))`
    public func copyTarget(_ location: IndexLocation) throws -> any IndexCopyTarget {
        switch location {
        case .sqlite(let url): return SQLiteCopyTarget(url)
        default: return try server(for: location).copyTarget(at: location)
        }
    }

    /// Whether several connections to `location` can read at once (a server's database), so a
    /// reader such as the gallery may open more than one.
    ///
    /// Usage: `let connections = opener.allowsConcurrentConnections(location) ? 4 : 1`
    public func allowsConcurrentConnections(_ location: IndexLocation) -> Bool {
        if case .sqlite = location { return false }
        return true
    }

    /// The backend that opens a server location.
    private func server(for location: IndexLocation) throws -> any IndexServer {
        if let server = servers.first(where: { $0.opens(location) }) { return server }
        throw TagIndexError.invalidInput(
            "\(location) is a database server this program was built without (link TagIndexPostgres and open it with IndexOpener.standard)")
    }
}

/// A database server backend of ``IndexOpener``: which locations it opens, and how.
///
/// Usage: `struct PostgresServer: IndexServer { ... }`, then `IndexOpener(servers: [PostgresServer()])`
public protocol IndexServer: Sendable {
    /// Whether this backend opens `location`.
    ///
    /// Usage: `server.opens(.postgres(descriptor))`
    func opens(_ location: IndexLocation) -> Bool

    /// Connects to the index at `location` for reading and corrections.
    ///
    /// Usage: `let index = try await server.open(location)`
    func open(_ location: IndexLocation) async throws -> any IndexBackend

    /// The index at `location` as indexers fill it (see ``IndexWriter``); nothing is connected
    /// until a run asks.
    ///
    /// Usage: `let writer = server.writer(at: location)`
    func writer(at location: IndexLocation) -> any IndexWriter

    /// The index at `location` as the target of a copy; nothing is connected until it starts.
    ///
    /// Usage: `let target = server.copyTarget(at: location)`
    func copyTarget(at location: IndexLocation) -> any IndexCopyTarget
}

/// An error of a database server backend, as a program shows it: the message names the server
/// (never a password), and ``isUnavailable`` says whether trying again later may help.
///
/// Usage: `if let error = error as? any IndexServerError, error.isUnavailable { status = 503 }`
public protocol IndexServerError: Error, CustomStringConvertible {
    /// The server could not be reached, refused the session or dropped the connection: the
    /// index is unavailable for now, not broken.
    var isUnavailable: Bool { get }
}
