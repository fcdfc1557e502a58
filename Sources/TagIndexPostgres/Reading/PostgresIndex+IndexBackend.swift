import TagIndex

extension PostgresIndex: IndexBackend {
    /// Whether the server closed the connection (a restart, a network cut): searches fail until
    /// the index is opened again.
    ///
    /// Usage: `if index.isConnectionClosed { index = try await PostgresIndex.open(descriptor) }`
    public var isConnectionClosed: Bool { session.connection.isClosed }
}
