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
    let folder: URL
    let index: TagIndex
    let indexer: FolderIndexer
    var base: [UInt8] { Array(folder.path.utf8) + [UInt8(ascii: "/")] }

    static let latin1Cat = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
    static let newlineCoffee = Array("new\nline\tcup.jpg".utf8)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "indexer-bytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let photos = FolderIndexerTests.photos
        index = try TagIndex.inMemory()
        indexer = FolderIndexer(index: index, classifier: ImageClassifier(model: FolderIndexerTests.model))
        try Self.copy(photos.appending(path: "cat-chelsea.jpg"), to: Array(folder.path.utf8) + [0x2F] + Self.latin1Cat)
        try Self.copy(photos.appending(path: "coffee-cup.jpg"), to: Array(folder.path.utf8) + [0x2F] + Self.newlineCoffee)
        try FileManager.default.copyItem(at: photos.appending(path: "rocket.jpg"), to: folder.appending(path: "IMG_0002"))
        try Data("not an image".utf8).write(to: folder.appending(path: "garbage.heic"))
        try Data("a note".utf8).write(to: folder.appending(path: "notes.txt"))
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

    func run(skipped: Locked<[String]>? = nil) async throws -> FolderIndexer.Report {
        var options = FolderIndexer.Options(roots: [folder.path], jobs: 2)
        if let skipped { options.skippedFile = { path in skipped.withLock { $0.append(path) } } }
        return try await indexer.run(options)
    }

    @Test func namesThatAreNotUTF8OrHoldANewlineAreIndexedAndFound() async throws {
        let skipped = Locked<[String]>([])
        let report = try await run(skipped: skipped)
        #expect(report.new == 3, "the Latin-1 name, the newline name and the extension-less JPEG")
        #expect(report.summary.failed == 1)
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

    @Test func anImageExtensionWithoutAnImageIsAFailedRow() async throws {
        let report = try await run()
        let failure = try #require(report.failures.first)
        #expect(failure.path == folder.appending(path: "garbage.heic").path)
        #expect(failure.stage == "decode")
        #expect(!failure.reason.isEmpty)
        let failed = try index.search("failed")
        #expect(failed.hits.map(\.path) == [folder.appending(path: "garbage.heic").path])
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
