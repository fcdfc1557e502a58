import CClassifyCodecs
import Classify
import ClassifyTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Scratch folders, a template index, photo copies and a look inside index databases, for the
/// reliability tests.
///
/// Usage: `let scratch = try ReliabilityScratch(); let db = try ReliabilityFixtures.freshDatabase(in: scratch)`
enum ReliabilityFixtures {
    /// The three license-clean photos of the Classify tests.
    static let photos = ReliabilityProcess.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/photos")
    static let photoNames = ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"]

    /// The bytes of an index holding only the taxonomy, made once by the tool itself (writing
    /// the taxonomy takes seconds in a debug build) and written out for each test; the folder it
    /// was made in is removed at once.
    static let templateDatabase: Data = {
        do {
            let scratch = try ScratchFolder("reliability-template")
            try FileManager.default.createDirectory(at: scratch.url.appending(path: "empty"), withIntermediateDirectories: true)
            let database = scratch.url.appending(path: "template.sqlite")
            let outcome = try ReliabilityProcess.run(["index", scratch.url.appending(path: "empty").path, "--db", database.path], scratch: scratch.url)
            guard outcome.exited(0) else { fatalError("cannot build the template index: \(outcome)") }
            return try Data(contentsOf: database)
        } catch {
            fatalError("cannot build the template index: \(error)")
        }
    }()

    /// A copy of the template index in `scratch`, writable by anyone (for unprivileged runs).
    static func freshDatabase(in scratch: ReliabilityScratch, name: String = "index.sqlite") throws -> URL {
        let url = scratch.url.appending(path: name)
        try templateDatabase.write(to: url)
        chmod(url.path, 0o666)
        return url
    }

    /// Writes a copy of photo `number % 3` with a trailing marker, so every copy has its own
    /// content (and content hash) but the same pixels: JPEG decoding stops at the end marker.
    @discardableResult
    static func photoCopy(_ number: Int, to url: URL) throws -> URL {
        var bytes = try Data(contentsOf: photos.appending(path: photoNames[number % 3]))
        bytes.append(contentsOf: [0xC1, UInt8(truncatingIfNeeded: number), UInt8(truncatingIfNeeded: number >> 8)])
        try bytes.write(to: url)
        return url
    }

    // MARK: Looking inside an index

    /// Runs `body` on a read-only connection (no checkpoint on close, so a crashed run's WAL is
    /// left for the next run to recover).
    static func read<T>(_ database: URL, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        // Like the tool's own connections: wait while another process holds a lock (an index run
        // checkpointing its WAL) instead of failing at once; on a loaded machine that takes a while.
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: database.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    static func integrity(_ database: URL) throws -> String {
        try read(database) { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }

    /// One row of the `images` table.
    struct ImageRow: Equatable, Sendable {
        var id: Int64
        var indexedAt: Int64
        var contentHash: String?
        var width: Int?
        var height: Int?
        var errorStage: String?
        var errorReason: String?
        var featurePrint: Data?
    }

    /// Every image row by path.
    static func images(_ database: URL) throws -> [String: ImageRow] {
        try read(database) { db in
            var rows: [String: ImageRow] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT path, id, indexed_at, content_hash, width, height, error_stage, error_reason, feature_print FROM images
                """) {
                rows[row[0]] = ImageRow(
                    id: row[1], indexedAt: row[2], contentHash: row[3], width: row[4], height: row[5],
                    errorStage: row[6], errorReason: row[7], featurePrint: row[8])
            }
            return rows
        }
    }

    /// Every image's stored labels as "identifier best confidence" lines, sorted, by path.
    static func labels(_ database: URL) throws -> [String: [String]] {
        try read(database) { db in
            var labels: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT i.path, l.identifier, o.best, o.confidence FROM observations AS o
                JOIN images AS i ON i.id = o.image_id JOIN labels AS l ON l.id = o.label_id
                """) {
                let confidence: Int? = row[3]
                labels[row[0], default: []].append("\(row[1] as String) \(row[2] as Int) \(confidence.map(String.init) ?? "-")")
            }
            return labels.mapValues { $0.sorted() }
        }
    }

    /// The stored feature print as floats (fp16 in the file).
    static func features(_ blob: Data?) -> [Float] {
        guard let blob else { return [] }
        return stride(from: 0, to: blob.count - 1, by: 2).map { Float(Float16(bitPattern: UInt16(blob[$0]) | UInt16(blob[$0 + 1]) << 8)) }
    }

    /// Parses stdout as one JSON object.
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text.prefix(500))")
    }
}

/// A fresh folder for one test, open to every user (so the tool can run unprivileged), removed
/// afterwards by `removeTree`, which copes with paths longer than PATH_MAX and unreadable folders.
final class ReliabilityScratch: @unchecked Sendable {
    let url: URL

    init(_ label: String = "reliability") throws {
        url = FileManager.default.temporaryDirectory.appending(path: "\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o777)
    }

    deinit { removeTree(atPath: url.path) }

    /// A sub-folder (created, open to every user).
    func folder(_ name: String) throws -> URL {
        let folder = url.appending(path: name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        return folder
    }
}

/// A small tmpfs mounted for one test (root only): a disk that fills up or turns read-only.
/// Unmounted when released.
final class ReliabilityMount: @unchecked Sendable {
    let url: URL
    private let options: String

    /// Throws ``ReliabilitySkip`` when this process may not mount (not root, or no CAP_SYS_ADMIN).
    init(kilobytes: Int) throws {
        guard geteuid() == 0 else { throw ReliabilitySkip(reason: "mounting a small tmpfs needs root") }
        url = FileManager.default.temporaryDirectory.appending(path: "reliability-mount-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        options = "size=\(kilobytes)k,mode=0777"
        guard mount("tmpfs", url.path, "tmpfs", 0, options) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: url)
            throw ReliabilitySkip(reason: "cannot mount a tmpfs here (\(reason))")
        }
    }

    /// Turns the file system read-only (or back).
    func remount(readOnly: Bool) throws {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        guard mount("tmpfs", url.path, "tmpfs", flags, options) == 0 else {
            throw ReliabilitySkip(reason: "cannot remount the tmpfs (\(String(cString: strerror(errno))))")
        }
    }

    /// Fills the file system, leaving about `leaving` kilobytes free.
    func fill(leaving kilobytes: Int) throws {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { throw ReliabilitySkip(reason: "statvfs failed") }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let size = max(0, free - kilobytes * 1024)
        let fd = open(url.appending(path: "filler").path, O_CREAT | O_WRONLY, 0o644)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var written = 0
        while written < size {
            let count = write(fd, chunk, min(chunk.count, size - written))
            if count <= 0 { break }
            written += count
        }
    }

    /// Frees what `fill` took.
    func drain() { unlink(url.appending(path: "filler").path) }

    deinit {
        umount2(url.path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(at: url)
    }
}
