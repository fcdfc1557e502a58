import TagIndex

/// The PostgreSQL backend of ``IndexOpener``: opens `postgres://` locations, for reading and
/// corrections (``PostgresIndex``), for indexers that share the database (``PostgresSharedIndex``)
/// and as the target of a copy (``PostgresCopyTarget``).
///
/// Usage: `let index = try await IndexOpener.standard.open(try IndexLocation(parsing: "postgres://me@nas/photos"))`
public struct PostgresServer: IndexServer {
    /// Usage: `IndexOpener(servers: [PostgresServer()])`
    public init() {}

    /// Whether `location` is a PostgreSQL database.
    ///
    /// Usage: `PostgresServer().opens(location)`
    public func opens(_ location: IndexLocation) -> Bool {
        if case .postgres = location { return true }
        return false
    }

    /// Connects to the database (a clear error naming host and port within 10 s when the server
    /// cannot be reached).
    ///
    /// Usage: `let index = try await PostgresServer().open(location)`
    public func open(_ location: IndexLocation) async throws -> any IndexBackend {
        try await PostgresIndex.open(try descriptor(location))
    }

    /// The database as indexers fill it.
    ///
    /// Usage: `let writer = PostgresServer().writer(at: location)`
    public func writer(at location: IndexLocation) -> any IndexWriter {
        guard case .postgres(let descriptor) = location else {
            preconditionFailure("IndexOpener asks a server only for the locations it opens")
        }
        return PostgresSharedIndex(descriptor)
    }

    /// The database as the target of a copy (``PostgresCopyTarget``).
    ///
    /// Usage: `let target = PostgresServer().copyTarget(at: location)`
    public func copyTarget(at location: IndexLocation) -> any IndexCopyTarget {
        guard case .postgres(let descriptor) = location else {
            preconditionFailure("IndexOpener asks a server only for the locations it opens")
        }
        return PostgresCopyTarget(descriptor)
    }


    private func descriptor(_ location: IndexLocation) throws -> PostgresDescriptor {
        guard case .postgres(let descriptor) = location else {
            throw TagIndexError.invalidInput("\(location) is not a PostgreSQL database")
        }
        return descriptor
    }
}

extension IndexOpener {
    /// SQLite files and PostgreSQL databases: what `classify-tool` and the gallery open.
    ///
    /// Usage: `let index = try await IndexOpener.standard.open(location)`
    public static var standard: IndexOpener { IndexOpener(servers: [PostgresServer()]) }
}
