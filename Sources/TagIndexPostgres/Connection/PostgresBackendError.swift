import TagIndex

/// Errors of the PostgreSQL backend, each naming the server as `host:port` and never a password.
///
/// Usage: `do { _ = try await PostgresSession.connect(descriptor) } catch let error as PostgresBackendError { print(error) }`
public enum PostgresBackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection could be made (refused, no route, timeout, TLS failure).
    case unreachable(endpoint: String, reason: String)
    /// The server answered but refused the session (authentication, missing database).
    case rejected(endpoint: String, reason: String)
    /// A statement failed on the server.
    case statement(endpoint: String, reason: String)
    /// The database holds TagIndex migrations this version does not know; it was not modified.
    case newerSchema(database: String, unknownMigrations: [String])

    /// The message shown to users.
    ///
    /// Usage: `print(error.description)`
    public var description: String {
        switch self {
        case .unreachable(let endpoint, let reason):
            return "cannot reach the PostgreSQL server at \(endpoint): \(reason)"
        case .rejected(let endpoint, let reason):
            return "the PostgreSQL server at \(endpoint) refused the connection: \(reason)"
        case .statement(let endpoint, let reason):
            return "the PostgreSQL server at \(endpoint) reported an error: \(reason)"
        case .newerSchema(let database, let unknown):
            return "\(database) was written by a newer version of TagIndex (schema migrations "
                + "\(unknown.sorted().joined(separator: ", ")) are unknown to this version); it was left untouched. "
                + "Upgrade classify-tool or use another database."
        }
    }
}

extension PostgresBackendError: IndexServerError {
    /// Whether the index is unavailable for now (the server cannot be reached, refused the
    /// session, or the connection broke) rather than a statement having failed.
    ///
    /// Usage: `if error.isUnavailable { status = 503 }`
    public var isUnavailable: Bool {
        if case .statement = self { return isConnectionFailure }
        return true
    }
}
