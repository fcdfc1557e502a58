import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// A SQLite index copied into a fresh PostgreSQL database and opened there, for tests that ask
/// both backends the same question.
///
/// Usage: `let postgres = try await PostgresCopyFixture.open(copying: fixture.index)`
enum PostgresCopyFixture {
    static func open(copying index: SQLiteIndex) async throws -> PostgresIndex {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        _ = try await IndexCopy.copy(from: index, to: session)
        await session.close()
        return try await PostgresIndex.open(descriptor)
    }
}
