import ClassifySupport
import ClassifyTestSupport
import Classify
import Foundation
import Testing
@testable import ClassifyIndexing
@testable import TagIndex

#if canImport(Glibc)
    import Glibc
#endif

/// LibraryIndexer against files that change under it, files it may not read, special files,
/// and a database that refuses writes. Every file ends up classified or as a failed row with a
/// stage and a reason; a database failure ends the run with a clear error and loses nothing.
@Suite(.serialized)
struct HostileFolderIndexingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = repository.appending(path: "Tests/ClassifyTests/Fixtures/photos")
    static let model: ImageClassifierModel = try! ImageClassifierModel(contentsOf: repository.appending(path: "Models/efficientnet-lite0"))
    static let vocabulary = IndexVocabulary(model: model)

    /// The bytes of a database that already holds the taxonomy (writing it takes seconds in a
    /// debug build), written out for each test; the file it was built in is removed at once.
    static let template: Data = {
        let url = FileManager.default.temporaryDirectory.appending(path: "hostile-indexing-template-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        do {
            try {
                let index = try SQLiteIndex(url: url)
                try vocabulary.install(into: index)
            }()
            return try Data(contentsOf: url)
        } catch {
            fatalError("cannot build the template index: \(error)")
        }
    }()

    /// Removed when the test ends.
    let scratch: ScratchFolder
    let folder: URL
    let index: SQLiteIndex
    let databaseURL: URL

    init() throws {
        scratch = try ScratchFolder("hostile-indexing")
        let base = scratch.url
        folder = base.appending(path: "photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        databaseURL = base.appending(path: "index.sqlite")
        try Self.template.write(to: databaseURL)
        index = try SQLiteIndex(url: databaseURL)
    }

    /// Copies of the fixture photos, each with its own trailing byte so no two have the same
    /// content (JPEG decoders stop at the end-of-image marker, so the labels do not change).
    func addPhotos(_ count: Int, prefix: String = "photo") throws -> [String] {
        let sources = ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"]
        return try (0..<count).map { number in
            var bytes = try Data(contentsOf: Self.photos.appending(path: sources[number % 3]))
            bytes.append(UInt8(truncatingIfNeeded: number))
            bytes.append(UInt8(truncatingIfNeeded: number >> 8))
            let url = folder.appending(path: "\(prefix)-\(number).jpg")
            try bytes.write(to: url)
            return url.path
        }
    }

    func run(jobs: Int = 1, batchSize: Int = 64, progress: @escaping @Sendable (LibraryIndexer.Progress) -> Void = { _ in }) async throws -> LibraryIndexer.Report {
        var options = try LibraryIndexer.Options(folders: [folder.path], jobs: jobs)
        options.settings.batchSize = batchSize
        return try await LibraryIndexer(index: index).run(options, classifier: ImageClassifier(model: Self.model), progress: progress)
    }

    /// Every failed row: path -> "stage: reason".
    func failedRows() throws -> [String: String] {
        var query = Query()
        query.filters.status = .failed
        query.limit = 1000
        var rows: [String: String] = [:]
        for hit in try index.search(query).hits { rows[hit.path] = "\(hit.failureStage ?? "?"): \(hit.failureReason ?? "?")" }
        return rows
    }

    func classifiedPaths() throws -> Set<String> {
        var query = Query()
        query.limit = 1000
        return Set(try index.search(query).hits.map(\.path))
    }

    @Test func filesDeletedBetweenListingAndReadingFailAtReadAndVanishNextRun() async throws {
        let paths = try addPhotos(5)
        // One job and one plan chunk: every file is listed before the first is read, and while
        // the progress callback runs (after the first file) nothing else is in flight.
        let report = try await run { progress in
            guard progress.done == 1 else { return }
            for path in paths where FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        #expect(report.new == 1 && report.summary.failed == 4)
        let failed = try failedRows()
        #expect(failed.count == 4)
        for path in failed.keys {
            #expect(failed[path] == "read: The file could not be read (No such file or directory); check that it exists and that you may read it.")
        }
        #expect(try classifiedPaths().count == 1)
        #expect(Set(failed.keys).union(try classifiedPaths()) == Set(paths))

        // The next run sees none of them and removes every row.
        let next = try await run()
        #expect(next.summary.removed == 5 && next.summary.failed == 0)
        #expect(try index.statistics() == IndexStatistics(imageCount: 0, failedCount: 0, labelCount: index.statistics().labelCount, observationCount: 0))
    }

    @Test func filesGrowingWhileIndexedAreRetriedByTheNextRun() async throws {
        let paths = try addPhotos(4)
        var sizes: [String: Int] = [:]
        for path in paths { sizes[path] = try Data(contentsOf: URL(fileURLWithPath: path)).count }
        let report = try await run { progress in
            guard progress.done == 1 else { return }
            // A writer appends to the files not read yet (and to the one already read).
            for path in paths {
                let handle = FileHandle(forWritingAtPath: path)!
                handle.seekToEndOfFile()
                handle.write(Data(repeating: 0x5A, count: 100))
                handle.closeFile()
            }
        }
        #expect(report.new == 1 && report.summary.failed == 3)
        let failed = try failedRows()
        #expect(failed.count == 3)
        for (path, row) in failed {
            let old = sizes[path]!
            #expect(row == "read: the file changed size while it was being read (\(old) -> \(old + 100) bytes); it will be indexed again on the next run")
        }
        // The next run classifies the final contents of all four (the first changed too).
        let next = try await run()
        #expect(next.summary.failed == 0)
        #expect(next.updated == 4 && next.new == 0)
        #expect(try classifiedPaths() == Set(paths))
        #expect(try failedRows().isEmpty)
    }

    @Test func specialAndBrokenFilesAreFailedRowsAndTheRunGoesOn() async throws {
        let good = try addPhotos(2)
        try Data().write(to: folder.appending(path: "empty.jpg"))
        try Data("this is text, not a JPEG\n".utf8).write(to: folder.appending(path: "text.jpg"))
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(to: folder.appending(path: "random.png"))
        var truncated = try Data(contentsOf: Self.photos.appending(path: "rocket.jpg"))
        truncated = truncated.prefix(truncated.count / 2)
        try truncated.write(to: folder.appending(path: "truncated.jpg"))
        #expect(mkfifo(folder.appending(path: "pipe.jpg").path, 0o644) == 0)
        #expect(symlink("missing.jpg", folder.appending(path: "dangling.jpg").path) == 0)
        #expect(symlink("loop.jpg", folder.appending(path: "loop.jpg").path) == 0)
        try FileManager.default.createDirectory(at: folder.appending(path: "album.jpg"), withIntermediateDirectories: true)

        let report = try await run(jobs: 2)
        #expect(report.new == 2)
        #expect(report.summary.failed == 7)
        let root = folder.path
        #expect(try failedRows() == [
            root + "/empty.jpg": "read: The file is empty (0 bytes); it was probably not written or copied completely.",
            root + "/text.jpg": "decode: The data is not an image in a format this tool reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF, camera raw); convert it to one of those first.",
            root + "/random.png": "decode: The data is not an image in a format this tool reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF, camera raw); convert it to one of those first.",
            root + "/truncated.jpg": "decode: The image data ends too early (Premature end of JPEG file); the file was probably cut off while downloading or copying.",
            root + "/pipe.jpg": "read: The path is not a regular file (it is a directory, pipe, socket or device); pass the path of an image file.",
            root + "/dangling.jpg": "read: broken symbolic link (No such file or directory)",
            root + "/loop.jpg": "read: symbolic link loop",
        ])
        #expect(try classifiedPaths() == Set(good))

        // A second run changes nothing that did not change: the same failures, nothing reclassified.
        let again = try await run(jobs: 2)
        #expect(again.new == 0 && again.updated == 0 && again.summary.removed == 0)
        #expect(try failedRows().count == 7)
    }

    @Test(.enabled(if: geteuid() != 0, "runs as root, where file permissions do not apply; the end-to-end suite covers this as an unprivileged user"))
    func unreadableFilesAndFoldersAreReadFailures() async throws {
        _ = try addPhotos(1)
        let secret = folder.appending(path: "secret.jpg")
        try Data(contentsOf: Self.photos.appending(path: "rocket.jpg")).write(to: secret)
        #expect(chmod(secret.path, 0) == 0)
        let closed = folder.appending(path: "closed")
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true)
        #expect(chmod(closed.path, 0) == 0)
        defer { chmod(closed.path, 0o755) }
        let report = try await run()
        #expect(report.new == 1)
        #expect(try failedRows() == [
            secret.path: "read: The file could not be read (Permission denied); check that it exists and that you may read it.",
            closed.path: "read: folder cannot be read (Permission denied)",
        ])
    }

    /// Names of files opened in the watched folder since the last call (folder opens excluded).
    static func openedFiles(_ watcher: Int32) -> Set<String> {
        var names: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(watcher, $0.baseAddress, $0.count) }
            guard count > 0 else { return names }
            var offset = 0
            while offset < count {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.load(fromByteOffset: offset + 4, as: UInt32.self), Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                if mask & UInt32(IN_ISDIR) == 0, !nameBytes.isEmpty { names.insert(String(decoding: nameBytes, as: UTF8.self)) }
                offset += 16 + length
            }
        }
    }

    @Test func aDatabaseThatRefusesWritesEndsTheRunAndKeepsWhatWasCommitted() async throws {
        let paths = try addPhotos(12)
        // SQLite's page quota stands in for a full disk.
        try await index.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        // inotify counts the files the run opened: after the refused write it must open no more.
        let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watcher >= 0)
        defer { close(watcher) }
        #expect(inotify_add_watch(watcher, folder.path, UInt32(IN_OPEN)) >= 0)
        let progressCount = Locked(0)
        await #expect(throws: TagIndexError.storage(
            path: databaseURL.path,
            reason: "the disk is full (database or disk is full); nothing written before was lost: free some space and run the command again")) {
            // batchSize 1: a progress call follows every successful commit.
            _ = try await run(batchSize: 1) { _ in progressCount.withLock { $0 += 1 } }
        }
        let progressCalls = progressCount.withLock { $0 }
        // The run stopped at the first refused write instead of reading the whole folder: with
        // one job, the files committed plus the one whose write failed.
        let committed = try index.statistics()
        #expect(committed.imageCount == progressCalls)
        #expect(Self.openedFiles(watcher).count == progressCalls + 1)
        #expect(progressCalls < paths.count - 1)
        let integrity = try await index.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")

        // With room again the next run finishes, skipping what was committed.
        try await index.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        let resumed = try await run()
        #expect(resumed.summary.unchanged == progressCalls)
        #expect(resumed.new == paths.count - progressCalls)
        #expect(try classifiedPaths() == Set(paths))
    }
}
