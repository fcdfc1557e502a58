import ClassifyTestSupport
import Classify
import ClassifySupport
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

#if canImport(Glibc)
    import Glibc
#endif

/// Names are bytes: files whose names are not UTF-8 or hold a newline are indexed, found and
/// followed when moved; a file with an image extension but no image in it is a failed row; files
/// that are not images are counted and named, never silently dropped.
@Suite(.serialized)
struct ByteNameIndexingTests {
    /// Removed when the test ends.
    let scratch: ScratchFolder
    let folder: URL
    let index: SQLiteIndex
    let indexer: LibraryIndexer
    let classifier = ImageClassifier(model: SQLiteIndexingTests.model)
    var base: [UInt8] { Array(folder.path.utf8) + [UInt8(ascii: "/")] }

    static let latin1Cat = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
    static let newlineCoffee = Array("new\nline\tcup.jpg".utf8)

    init() throws {
        scratch = try ScratchFolder("indexer-bytes")
        folder = scratch.url
        let photos = SQLiteIndexingTests.photos
        index = try SQLiteIndex.inMemory()
        indexer = LibraryIndexer(index: index)
        try Self.copy(photos.appending(path: "cat-chelsea.jpg"), to: Array(folder.path.utf8) + [0x2F] + Self.latin1Cat)
        try Self.copy(photos.appending(path: "coffee-cup.jpg"), to: Array(folder.path.utf8) + [0x2F] + Self.newlineCoffee)
        try FileManager.default.copyItem(at: photos.appending(path: "rocket.jpg"), to: folder.appending(path: "IMG_0002"))
        try Data("not an image".utf8).write(to: folder.appending(path: "garbage.heic"))
        try Data("a note".utf8).write(to: folder.appending(path: "notes.txt"))
        // No extension, but a JPEG 2000 signature: an image this tool cannot read, a failed row.
        try Data([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F] + [UInt8](repeating: 0, count: 64)).write(to: folder.appending(path: "scan-0001"))
    }

    /// Writes `source`'s bytes to the raw path `destination`.
    static func copy(_ source: URL, to destination: [UInt8]) throws {
        let bytes = try Data(contentsOf: source)
        let fd = (destination + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_TRUNC, 0o644) } }
        try #require(fd >= 0)
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        try #require(written == bytes.count)
    }

    func run(skipped: Locked<[String]>? = nil) async throws -> LibraryIndexer.Report {
        var options = try LibraryIndexer.Options(folders: [folder.path], jobs: 2)
        if let skipped { options.skippedFile = { path in skipped.withLock { $0.append(path) } } }
        return try await indexer.run(options, classifier: classifier)
    }

    @Test func namesThatAreNotUTF8OrHoldANewlineAreIndexedAndFound() async throws {
        let skipped = Locked<[String]>([])
        let report = try await run(skipped: skipped)
        #expect(report.new == 3, "the Latin-1 name, the newline name and the extension-less JPEG")
        #expect(report.summary.failed == 2, "garbage.heic and the JPEG 2000 scan")
        #expect(report.skippedNonImages == 1)
        #expect(skipped.withLock { $0 } == [folder.appending(path: "notes.txt").path])

        let cats = try index.search("cat")
        #expect(cats.hits.map { RawPath.bytes(of: $0.path) } == [base + Self.latin1Cat])
        let cups = try index.search("espresso")
        #expect(cups.hits.map { RawPath.bytes(of: $0.path) } == [base + Self.newlineCoffee])
        let cupPath = RawPath.string(fromBytes: base + Self.newlineCoffee)
        let stored = try #require(try index.image(atPath: cupPath))
        #expect(stored.width != nil && stored.hasFeaturePrint)
        #expect(try index.image(atPath: folder.appending(path: "IMG_0002").path)?.hasFeaturePrint == true)
    }

    @Test func anImageExtensionWithoutAnImageAndAnUnreadableImageAreFailedRows() async throws {
        let report = try await run()
        let failures = Dictionary(uniqueKeysWithValues: report.failures.map { ($0.path, $0) })
        let garbage = try #require(failures[folder.appending(path: "garbage.heic").path])
        #expect(garbage.stage == "decode")
        #expect(garbage.reason.hasPrefix("The data is not an image"))
        let scan = try #require(failures[folder.appending(path: "scan-0001").path])
        #expect(scan.stage == "decode")
        #expect(scan.reason.contains("JPEG 2000"), "\(scan.reason)")
        let failed = try index.search("failed")
        #expect(Set(failed.hits.map(\.path)) == [folder.appending(path: "garbage.heic").path, folder.appending(path: "scan-0001").path])
    }

    @Test func aMovedFileWithAByteNameKeepsItsLabels() async throws {
        _ = try await run()
        let renamed = Array("caf".utf8) + [0xE8] + Array(".jpg".utf8)
        let moved = (base + Self.latin1Cat + [0]).withUnsafeBufferPointer { old in
            (base + renamed + [0]).withUnsafeBufferPointer { new in
                old.withMemoryRebound(to: CChar.self) { old in new.withMemoryRebound(to: CChar.self) { rename(old.baseAddress!, $0.baseAddress!) } }
            }
        }
        try #require(moved == 0)
        let again = try await run()
        #expect(again.summary.moved == 1 && again.new == 0 && again.updated == 0, "\(again.summary)")
        #expect(try index.search("cat").hits.map { RawPath.bytes(of: $0.path) } == [base + renamed])
    }
}
