import ClassifyTestSupport
import CClassifyCodecs
import Foundation
import Testing

@testable import Classify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading goes through `ImageDecoder.decode(contentsOf:)`; every case must fail fast with a
/// read-stage error, never block (hence the time limits) and never crash.
/// The time limit only catches a hang: its clock runs from the test's start, including time spent
/// waiting for a thread while CPU-heavy tests hold both cores (minutes on a busy 2-core machine).
@Suite("Reading image files", .timeLimit(.minutes(15)))
struct ImageFileReadingTests {
    let decoder = ImageDecoder()

    /// A fresh directory for one test, removed afterwards.
    final class ScratchDirectory {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory
                .appendingPathComponent("classify-image-tests-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func file(_ name: String, contents: [UInt8]) throws -> URL {
            let file = url.appendingPathComponent(name)
            try Data(contents).write(to: file)
            return file
        }
    }

    static func jpeg() throws -> [UInt8] {
        try TestJPEG.encode([UInt8](repeating: 77, count: 16 * 8 * 3), width: 16, height: 8)
    }

    @Test func readsARegularFileAndIgnoresItsExtension() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("really-a-jpeg.png", contents: Self.jpeg())
        let image = try decoder.decode(contentsOf: url)
        #expect((image.format, image.width, image.height) == (.jpeg, 16, 8))
    }

    @Test func directoryIsNotARegularFile() throws {
        let scratch = try ScratchDirectory()
        let error = decodingError { try decoder.decode(contentsOf: scratch.url) }
        #expect(error == .notRegularFile)
        #expect(error?.stage == "read")
    }

    @Test func fifoIsRejectedWithoutBlocking() throws {
        let scratch = try ScratchDirectory()
        let fifo = scratch.url.appendingPathComponent("pipe.jpg")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        // No writer ever opens the pipe: a blocking open() or read() would hang here.
        #expect(decodingError { try decoder.decode(contentsOf: fifo) } == .notRegularFile)
    }

    @Test func characterDeviceIsNotARegularFile() {
        #expect(decodingError { try decoder.decode(contentsOf: URL(fileURLWithPath: "/dev/zero")) } == .notRegularFile)
    }

    @Test func zeroByteFileIsEmpty() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("empty.jpg", contents: [])
        let error = decodingError { try decoder.decode(contentsOf: url) }
        #expect(error == .empty)
        #expect(error?.stage == "read")
    }

    @Test func missingFileIsUnreadable() throws {
        let scratch = try ScratchDirectory()
        let url = scratch.url.appendingPathComponent("does-not-exist.jpg")
        let error = decodingError { try decoder.decode(contentsOf: url) }
        #expect(error == .unreadable("No such file or directory"))
        #expect(error?.stage == "read")
    }

    @Test func fileDeletedAfterListingIsUnreadable() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.file("photo.jpg", contents: Self.jpeg())
        let listed = try FileManager.default.contentsOfDirectory(at: scratch.url, includingPropertiesForKeys: nil)
        let url = try #require(listed.first)
        try FileManager.default.removeItem(at: url)
        #expect(decodingError { try decoder.decode(contentsOf: url) } == .unreadable("No such file or directory"))
    }

    // Root may read any file regardless of its mode bits, so the outcome can only be asserted
    // for ordinary users; when the suite runs as root this test is skipped.
    @Test(.enabled(if: geteuid() != 0, "root can read files regardless of their permissions"))
    func fileWithoutReadPermissionIsUnreadable() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("secret.jpg", contents: Self.jpeg())
        try #require(chmod(url.path, 0o000) == 0)
        defer { _ = chmod(url.path, 0o600) }
        #expect(decodingError { try decoder.decode(contentsOf: url) } == .unreadable("Permission denied"))
    }

    @Test func fileOverTheReadLimitIsRejected() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("big.jpg", contents: [UInt8](repeating: 0, count: 2048))
        var limited = ImageDecoder()
        limited.maximumFileByteCount = 1024
        let error = decodingError { try limited.decode(contentsOf: url) }
        #expect(error == .fileTooLarge(byteCount: 2048, limit: 1024))
        #expect(error?.stage == "read")
    }

    @Test func textFileIsNotAnImage() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("notes.jpg", contents: Array("shopping list\n".utf8))
        let error = decodingError { try decoder.decode(contentsOf: url) }
        #expect(error == .unrecognizedFormat)
        #expect(error?.stage == "decode")
    }

    @Test func nonFileURLIsUnreadable() throws {
        let url = try #require(URL(string: "https://example.com/cat.jpg"))
        #expect(decodingError { try decoder.decode(contentsOf: url) } == .unreadable("not a file URL: https://example.com/cat.jpg"))
    }
}
