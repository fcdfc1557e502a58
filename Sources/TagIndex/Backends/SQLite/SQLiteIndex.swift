import ClassifySupport
import Foundation
import GRDB

/// A SQLite label index: what Classify saw in each image, kept in sync with the
/// folders, answering searches in milliseconds.
///
/// The database is in WAL mode with foreign keys on; readers never block the
/// writer and see a consistent snapshot while an index run writes. An instance is
/// `Sendable`: share one between tasks.
///
/// ```swift
/// let index = try SQLiteIndex(url: URL(fileURLWithPath: "labels.sqlite"))
/// try index.replaceTaxonomy(labels, model: stamp)
/// try index.write(batch: [.classified(result)])
/// let page = try index.search("dog -cat under:/photos/2023")
/// for hit in page.hits { print(hit.score, hit.path) }
/// ```
public final class SQLiteIndex: Sendable {
    /// Observations below this confidence are not stored (0.01).
    ///
    /// Every threshold chosen at query time at or above it is answered without
    /// re-indexing; see `StorageFormat.storageFloor` for why 0.01.
    ///
    /// ```swift
    /// let floor = SQLiteIndex.storageFloor
    /// ```
    public static let storageFloor = StorageFormat.storageFloor

    package let database: any DatabaseWriter
    /// The database path, or `:memory:`.
    let location: String
    let taxonomyCache = Locked<TaxonomySnapshot?>(nil)
    let writerLock: WriterLock

    /// Opens or creates the database at `url` and migrates it to the current schema.
    ///
    /// Throws ``TagIndexError/newerSchema(path:unknownMigrations:)`` without
    /// modifying the file when it was written by a newer version.
    ///
    /// ```swift
    /// let index = try SQLiteIndex(url: URL(fileURLWithPath: "/var/lib/classify/index.sqlite"))
    /// ```
    /// A file that cannot be opened (read-only or full disk, damaged file) throws
    /// ``TagIndexError/storage(path:reason:)``.
    public init(url: URL) throws {
        let path = url.path
        do {
            if FileManager.default.fileExists(atPath: path) {
                try Self.refuseNewerSchema(at: path)
            }
            let pool: DatabasePool
            do {
                pool = try Self.openPool(path: path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                throw TagIndexError.notADatabase(path: path, reason: error.message ?? "not a database")
            }
            database = pool
            location = path
            writerLock = WriterLock(lockPath: path + ".lock")
            try migrate()
        } catch let error as DatabaseError {
            throw TagIndexError.storage(error, path: path) ?? error
        }
    }

    /// Opens an existing database for reading only: no migration, no write, never a lock that
    /// would make an index run wait. Several readers and one `index` run can share the file; each
    /// read sees the batches committed before it started.
    ///
    /// Throws ``TagIndexError/newerSchema(path:unknownMigrations:)`` for a database from a newer
    /// version, ``TagIndexError/olderSchema(path:missingMigrations:)`` for one that an index run
    /// of this version must upgrade first, and ``TagIndexError/storage(path:reason:)`` when the
    /// file cannot be opened.
    ///
    /// ```swift
    /// let index = try SQLiteIndex(readingFrom: URL(fileURLWithPath: "/var/lib/classify/index.sqlite"))
    /// ```
    public init(readingFrom url: URL) throws {
        let path = url.path
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                throw TagIndexError.storage(path: path, reason: "there is no file there; build an index with: classify-tool index FOLDER")
            }
            try Self.refuseNewerSchema(at: path)
            var configuration = Self.configuration()
            configuration.readonly = true
            let pool: DatabasePool
            do {
                pool = try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                throw TagIndexError.notADatabase(path: path, reason: error.message ?? "not a database")
            }
            let missing = try pool.read { db in
                Set(Schema.migrationIdentifiers).subtracting(try Schema.appliedMigrations(db))
            }
            if !missing.isEmpty {
                throw TagIndexError.olderSchema(path: path, missingMigrations: missing.sorted())
            }
            database = pool
            location = path
            writerLock = WriterLock(lockPath: nil)
        } catch let error as DatabaseError {
            throw TagIndexError.storage(error, path: path) ?? error
        }
    }

    /// Opens a new, empty database in memory (tests, tools, embedding).
    ///
    /// ```swift
    /// let index = try SQLiteIndex.inMemory()
    /// ```
    public static func inMemory() throws -> SQLiteIndex {
        try SQLiteIndex(queue: DatabaseQueue(configuration: configuration()))
    }

    private init(queue: DatabaseQueue) throws {
        database = queue
        location = ":memory:"
        writerLock = WriterLock(lockPath: nil)
        try migrate()
    }

    /// A pool on the file at `path`, created when there is none. Opening turns the file to WAL
    /// (`PRAGMA journal_mode = WAL`), which SQLite can refuse as busy at once, without waiting as
    /// the busy timeout says, while another process opening the same new file holds it (two `index`
    /// runs started together on a machine under load): the opening is tried again for as long as
    /// that timeout.
    private static func openPool(path: String) throws -> DatabasePool {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration())
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // A second writer waits this long for the write lock, then fails.
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = 4
        configuration.prepareDatabase { db in
            // WAL + NORMAL: a commit survives a process crash (kill -9); only a
            // power loss may roll back the last transactions, never corrupt.
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536")
            // Memory-mapped reads skip a copy per page: scans of the benchmark's
            // 600 MB index ran 20-30% faster (facets 97 -> 75 ms) with it.
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        }
        return configuration
    }

    /// Brings the schema up to date. A database that is already current is only read, so opening
    /// it never waits for the write lock: `search` and `stats` open the index while an index
    /// run holds a write transaction, however long that transaction lasts.
    ///
    /// Two processes opening a new file at once both migrate it. GRDB runs each migration in its
    /// own transaction but decides which to run before taking the write lock, so the slower
    /// process repeats a migration the other has just committed, fails on its tables and rolls
    /// back. When that happens and the other process has moved the schema on, the migrations
    /// are read again and the rest applied; a failure without such progress is a real one.
    private func migrate() throws {
        let migrator = Schema.migrator
        var applied = try appliedMigrations()
        while !applied.isSuperset(of: Schema.migrationIdentifiers) {
            do {
                try migrator.migrate(database)
                return
            } catch let error as DatabaseError {
                let now = try appliedMigrations()
                guard now != applied else { throw error }
                applied = now
            }
        }
    }

    /// The migrations applied to the file; throws when a newer version applied some this one
    /// does not know.
    private func appliedMigrations() throws -> Set<String> {
        try database.read { db in
            let applied = try Schema.appliedMigrations(db)
            let unknown = applied.subtracting(Schema.migrationIdentifiers)
            if !unknown.isEmpty {
                throw TagIndexError.newerSchema(path: location, unknownMigrations: unknown.sorted())
            }
            return applied
        }
    }

    /// Reads the migrations of an existing file through a read-only connection,
    /// so a database from a newer version is never modified.
    private static func refuseNewerSchema(at path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        // Wait, as the pool's connections do, when another process holds the file for a moment
        // (an index run's last connection cleans up the WAL as it closes).
        configuration.busyMode = .timeout(10)
        let unknown: Set<String>
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            unknown = try queue.read { db in
                try Schema.appliedMigrations(db).subtracting(Schema.migrationIdentifiers)
            }
            try queue.close()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw TagIndexError.notADatabase(path: path, reason: error.message ?? "not a database")
        }
        if !unknown.isEmpty {
            throw TagIndexError.newerSchema(path: path, unknownMigrations: unknown.sorted())
        }
    }

    /// The taxonomy as of `db`'s snapshot, from the cache when unchanged.
    package func taxonomy(_ db: Database) throws -> TaxonomySnapshot {
        let generation = try TaxonomySnapshot.generation(db)
        if let cached = taxonomyCache.withLock({ $0 }), cached.generation == generation {
            return cached
        }
        let snapshot = try TaxonomySnapshot.load(db)
        taxonomyCache.withLock { $0 = snapshot }
        return snapshot
    }

    /// Counts of what the index holds.
    ///
    /// ```swift
    /// let stats = try index.statistics()
    /// print(stats.imageCount, stats.failedCount)
    /// ```
    public func statistics() throws -> IndexStatistics {
        try guardingStorage { try statisticsUnguarded() }
    }

    private func statisticsUnguarded() throws -> IndexStatistics {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT
                    (SELECT COUNT(*) FROM images WHERE error_stage IS NULL),
                    (SELECT COUNT(*) FROM images WHERE error_stage IS NOT NULL),
                    (SELECT COUNT(*) FROM labels),
                    (SELECT COUNT(*) FROM observations),
                    (SELECT COUNT(*) FROM image_faces),
                    (SELECT COUNT(*) FROM image_faces WHERE face_count > 0),
                    (SELECT COALESCE(SUM(face_count), 0) FROM image_faces),
                    (SELECT COALESCE(SUM(face_count), 0) FROM image_faces WHERE descriptors IS NOT NULL)
                """)!
            return IndexStatistics(
                imageCount: row[0], failedCount: row[1], labelCount: row[2], observationCount: row[3],
                faceScannedCount: row[4], imagesWithFacesCount: row[5], faceCount: row[6], describedFaceCount: row[7])
        }
    }
}

/// Counts of what an index holds.
///
/// ```swift
/// let stats = try index.statistics()
/// ```
public struct IndexStatistics: Sendable, Hashable {
    /// Successfully classified images.
    public var imageCount: Int
    /// Files whose classification failed.
    public var failedCount: Int
    /// Labels of the taxonomy (and any seen outside it).
    public var labelCount: Int
    /// Stored (label, image) rows, leaves and parents.
    public var observationCount: Int
    /// Images on which faces were looked for (indexed with faces).
    public var faceScannedCount = 0
    /// Images with at least one stored face.
    public var imagesWithFacesCount = 0
    /// Stored faces, all images together.
    public var faceCount = 0
    /// Stored faces that went through recognition (they have a descriptor, or recognition found
    /// no chip in them); the rest get one on the next index run.
    public var describedFaceCount = 0

    /// Memberwise, for the backends of this package.
    package init(
        imageCount: Int, failedCount: Int, labelCount: Int, observationCount: Int, faceScannedCount: Int = 0,
        imagesWithFacesCount: Int = 0, faceCount: Int = 0, describedFaceCount: Int = 0
    ) {
        self.imageCount = imageCount
        self.failedCount = failedCount
        self.labelCount = labelCount
        self.observationCount = observationCount
        self.faceScannedCount = faceScannedCount
        self.imagesWithFacesCount = imagesWithFacesCount
        self.faceCount = faceCount
        self.describedFaceCount = describedFaceCount
    }
}
