import TagIndex
import Foundation
import GRDB
import PostgresNIO

/// An empty PostgreSQL database as the target of a copy (``IndexCopy``): its schema is created
/// when missing, every row goes in one transaction (an interrupted copy leaves the database
/// empty), identity sequences move past the copied ids, and the copied rows are compacted into
/// the postings and prints that searches read. A database that already holds images or labels is
/// refused: an index is never merged into.
///
/// Usage: `let copied = try await IndexCopy.copy(from: try SQLiteIndex(readingFrom: file), to: PostgresCopyTarget(descriptor))`
public struct PostgresCopyTarget: IndexCopyTarget {
    private enum Connection: Sendable {
        case own(PostgresDescriptor)
        case given(PostgresSession)
    }
    private let connection: Connection

    /// A copy into the database of `descriptor`, on a connection of its own, closed afterwards
    /// whatever happens.
    ///
    /// Usage: `let target = PostgresCopyTarget(try PostgresDescriptor(parsing: "postgres://me@nas/photos"))`
    public init(_ descriptor: PostgresDescriptor) {
        connection = .own(descriptor)
    }

    /// A copy on a session the caller keeps (tests and benchmarks).
    ///
    /// Usage: `let target = PostgresCopyTarget(session: session)`
    package init(session: PostgresSession) {
        connection = .given(session)
    }

    /// Usage: `try await target.receiveCopy { write in try await write(rows, table) }`
    public func receiveCopy(_ fill: (_ write: (_ rows: [[DatabaseValue]], _ table: IndexCopy.Table) async throws -> Void) async throws -> Void) async throws {
        switch connection {
        case .given(let session):
            try await receive(on: session, fill)
        case .own(let descriptor):
            let session = try await PostgresSession.connect(descriptor)
            do {
                try await receive(on: session, fill)
                await session.close()
            } catch {
                await session.close()
                throw error
            }
        }
    }

    private func receive(
        on target: PostgresSession, _ fill: (_ write: (_ rows: [[DatabaseValue]], _ table: IndexCopy.Table) async throws -> Void) async throws -> Void
    ) async throws {
        try await PostgresSchema.migrate(target)
        let existing = try await target.all("SELECT (SELECT COUNT(*) FROM images) + (SELECT COUNT(*) FROM labels)") { try $0.decode(Int64.self) }
        guard existing.first == 0 else {
            throw TagIndexError.invalidInput("\(target.descriptor) already holds an index; copy into an empty database")
        }
        try await target.transaction { session in
            try await fill { rows, table in try await Self.insert(rows, into: table, session) }
            for table in IndexCopy.tables where table.hasIdentity {
                try await session.execute("""
                    SELECT setval(pg_get_serial_sequence('\(table.name)', 'id'), COALESCE((SELECT MAX(id) FROM \(table.name)), 0) + 1, false)
                    """)
            }
        }
        // The copied rows' blocks into the compacted postings and prints that searches read
        // (until then, searches read the same rows from the tables themselves).
        try await PostgresPostings.compact(target)
    }

    /// One multi-row INSERT of `rows`, every value a bound parameter.
    private static func insert(_ rows: [[DatabaseValue]], into table: IndexCopy.Table, _ session: PostgresSession) async throws {
        var binds = PostgresBindings(capacity: rows.count * table.columns.count)
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        var parameter = 0
        for row in rows {
            var placeholders: [String] = []
            for (column, value) in zip(table.columns, row) {
                parameter += 1
                placeholders.append("$\(parameter)")
                bind(value, boolean: table.booleans.contains(column), into: &binds)
            }
            tuples.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        try await session.execute(
            "INSERT INTO \(table.name)(\(table.columns.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", "), binds)
    }

    /// A SQLite value as a PostgreSQL parameter: integers as bigint (or boolean), text as text,
    /// blobs as bytea; `meta.value` (untyped in SQLite) arrives as text through the column's type.
    static func bind(_ value: DatabaseValue, boolean: Bool, into binds: inout PostgresBindings) {
        switch value.storage {
        case .null:
            binds.appendNull()
        case .int64(let integer):
            if boolean { binds.append(integer != 0) } else { binds.append(integer) }
        case .double(let real):
            binds.append(real)
        case .string(let text):
            binds.append(text)
        case .blob(let data):
            binds.append(ByteBuffer(bytes: data))
        }
    }
}

extension IndexCopy {
    /// Copies `source` into the PostgreSQL database of a session the caller keeps (tests and
    /// benchmarks).
    ///
    /// Usage: `let summary = try await IndexCopy.copy(from: index, to: session)`
    package static func copy(from source: any IndexCopySource, to session: PostgresSession, pageSize: Int = defaultPageSize) async throws -> Summary {
        try await copy(from: source, to: PostgresCopyTarget(session: session), pageSize: pageSize)
    }

    /// Copies the index of a session the caller keeps into a new SQLite file (tests).
    ///
    /// Usage: `let summary = try await IndexCopy.copy(from: session, toNewFile: url)`
    package static func copy(from session: PostgresSession, toNewFile url: URL, pageSize: Int = defaultPageSize) async throws -> Summary {
        let source = try await PostgresIndex.reading(session)
        return try await copy(from: source, to: SQLiteCopyTarget(url), pageSize: pageSize)
    }
}
