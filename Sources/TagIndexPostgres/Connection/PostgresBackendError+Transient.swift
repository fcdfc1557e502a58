import TagIndex

extension PostgresBackendError {
    /// What a retry can do about an error: nothing, run the transaction again on the same
    /// connection, or connect again first.
    enum Recovery: Equatable {
        case none
        /// A deadlock or serialization failure: the server rolled the transaction back.
        case retryTransaction
        /// The connection is gone or the server is restarting: connect again, then retry.
        case reconnect
    }

    /// The SQLSTATE a server message carried (`... (SQLSTATE 57P01)`), when there is one.
    var sqlState: String? {
        let reason: String
        switch self {
        case .rejected(_, let text), .statement(_, let text): reason = text
        case .unreachable, .newerSchema: return nil
        }
        guard let marker = reason.range(of: "(SQLSTATE ") else { return nil }
        let code = reason[marker.upperBound...].prefix(5)
        return code.count == 5 ? String(code) : nil
    }

    /// How `error` (any error a session threw) can be recovered from.
    ///
    /// Connection exceptions (class 08), operator intervention (57P01 admin shutdown, 57P02 crash
    /// shutdown, 57P03 cannot connect now: the server is starting or stopping) and too many
    /// connections (53300) are worth a new connection; deadlocks (40P01) and serialization
    /// failures (40001) a new try of the transaction. Everything else (a refused password, a
    /// missing database, a bad statement) is reported at once.
    static func recovery(for error: any Error) -> Recovery {
        guard let error = error as? PostgresBackendError else { return .none }
        if case .unreachable = error { return .reconnect }
        guard let state = error.sqlState else { return .none }
        if state == "40P01" || state == "40001" { return .retryTransaction }
        if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) { return .reconnect }
        return .none
    }
}

extension PostgresBackendError {
    /// Whether the error means the server cannot be used right now (unreachable, shutting down
    /// or restarting, the connection cut, too many connections) rather than a problem with what
    /// was asked: a new connection later may succeed.
    ///
    /// Usage: `let status = error.isConnectionFailure ? 503 : 500`
    public var isConnectionFailure: Bool { Self.recovery(for: self) == .reconnect }
}
