import Foundation
import TagIndex

extension IndexCopy {
    /// Copies a SQLite index into the (empty) PostgreSQL database `target`, on a connection of
    /// its own, closed afterwards whatever happens.
    ///
    /// Usage: `let copied = try await IndexCopy.copy(from: try SQLiteIndex(readingFrom: file), to: descriptor)`
    public static func copy(from source: SQLiteIndex, to target: PostgresDescriptor, pageSize: Int = defaultPageSize) async throws -> Summary {
        try await withSession(target) { try await copy(from: source, to: $0, pageSize: pageSize) }
    }

    /// Copies the PostgreSQL index `source` into a new SQLite file at `url`, on a connection of
    /// its own, closed afterwards whatever happens.
    ///
    /// Usage: `let copied = try await IndexCopy.copy(from: descriptor, toNewFile: url)`
    public static func copy(from source: PostgresDescriptor, toNewFile url: URL, pageSize: Int = defaultPageSize) async throws -> Summary {
        try await withSession(source) { try await copy(from: $0, toNewFile: url, pageSize: pageSize) }
    }

    /// Runs `body` on a new session, closed afterwards whatever happens.
    private static func withSession(_ descriptor: PostgresDescriptor, _ body: (PostgresSession) async throws -> Summary) async throws -> Summary {
        let session = try await PostgresSession.connect(descriptor)
        do {
            let summary = try await body(session)
            await session.close()
            return summary
        } catch {
            await session.close()
            throw error
        }
    }
}
