import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A library whose names are bytes: not UTF-8, with a newline, a tab, a backslash, a leading
/// dash. `index` classifies them, `search` prints them back exactly (lines, `-0`, JSON), `show`
/// finds them, and files that are not images are counted and listed with `--verbose`.
private let byteLibrary = Task { () throws -> (fixture: Fixture, paths: Set<[UInt8]>, first: Tool.Result) in
    let fixture = try Fixture.empty("bytes")
    let folder = Array(fixture.photos.path.utf8) + [UInt8(ascii: "/")]
    var paths: Set<[UInt8]> = []
    for (source, name) in [
        ("cat-chelsea.jpg", Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)),
        ("coffee-cup.jpg", Array("new\nline.jpg".utf8)),
        ("rocket.jpg", Array("-dash\tand\\back slash.JPG".utf8)),
    ] {
        let bytes = try Data(contentsOf: Fixture.sourcePhotos.appending(path: source))
        let raw = folder + name
        let fd = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        try #require(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        paths.insert(raw)
    }
    try Data("not an image".utf8).write(to: fixture.photos.appending(path: "garbage.heic"))
    try Data("a note".utf8).write(to: fixture.photos.appending(path: "notes.txt"))
    let first = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
    return (fixture, paths, first)
}

@Suite struct ByteNameToolTests {
    private func run(_ arguments: [String]) async throws -> Tool.Result {
        try Tool.run(arguments + ["--db", try await byteLibrary.value.fixture.database.path])
    }

    /// Runs the tool through /bin/sh with one argument given as raw bytes (Process passes only
    /// strings, which must be UTF-8).
    private func run(_ arguments: [String], rawLast: [UInt8]) async throws -> Tool.Result {
        let escaped = rawLast.map { String(format: "\\0%03o", $0) }.joined()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"exec "$0" "$@" "$(printf '%b' "$RAW")""#, Tool.executable.path]
            + arguments + ["--db", try await byteLibrary.value.fixture.database.path]
        var environment = Tool.environment(dataHome: try await byteLibrary.value.fixture.dataHome)
        environment["RAW"] = escaped
        process.environment = environment
        return try Tool.capture(process) { _ in }
    }

    /// Opens `path` by its bytes.
    private func exists(_ path: [UInt8]) -> Bool {
        var info = stat()
        return (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &info) } } == 0
    }

    @Test func indexClassifiesByteNamesAndCountsNonImages() async throws {
        let (fixture, _, first) = try await byteLibrary.value
        #expect(first.status == 2, "garbage.heic fails: \(first)")
        #expect(first.lines.first?.hasSuffix(": 3 new, 0 updated, 0 moved, 0 copied, 0 touched, 0 unchanged, 0 removed, 1 failed") == true, "\(first.stdout)")
        #expect(first.lines.contains("skipped 1 file that is not an image (no image extension or signature); --verbose lists them"))
        #expect(first.lines.contains { $0.hasPrefix("  \(fixture.photos.path)/garbage.heic: decode: ") })
        // --verbose names what was skipped.
        let again = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path, "--verbose"])
        #expect(again.stderr.contains("skipped (not an image): \(fixture.photos.path)/notes.txt\n"), "\(again.stderr)")
        #expect(again.lines.contains("skipped 1 file that is not an image (no image extension or signature)"))
    }

    @Test func searchPrintsTheExactBytesOnePerLine() async throws {
        let paths = try await byteLibrary.value.paths
        let result = try await run(["search", "--sort", "path"])
        #expect(result.status == 0)
        #expect(result.stdoutBytes == paths.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 + [0x0A] })
    }

    @Test func searchNullSeparatesPathsThatReachTheFiles() async throws {
        let paths = try await byteLibrary.value.paths
        for flag in ["-0", "--null"] {
            let result = try await run(["search", flag])
            #expect(result.status == 0)
            #expect(result.stdoutBytes.last == 0)
            let records = result.stdoutBytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
            #expect(Set(records) == paths)
            #expect(records.allSatisfy(exists))
        }
        #expect(try await run(["search", "-0", "--format", "json"]).status == 1)
    }

    @Test func searchJSONIsValidAndCarriesTheBytes() async throws {
        let paths = try await byteLibrary.value.paths
        let result = try await run(["search", "--format", "json"])
        #expect(result.status == 0)
        let object = try JSONDecoder().decode(Page.self, from: Data(result.stdoutBytes))
        #expect(Set(object.results.map(\.bytes)) == paths)
        let latin1 = try #require(object.results.first { $0.pathBytes != nil })
        #expect(latin1.path.hasSuffix("/caf\u{FFFD}.jpg"))
        #expect(object.results.filter { $0.pathBytes != nil }.count == 1, "only the name that is not UTF-8 needs its bytes")
    }

    @Test func showFindsAByteNameGivenOnTheCommandLine() async throws {
        let paths = try await byteLibrary.value.paths
        for path in paths {
            let table = try await run(["show"], rawLast: path)
            #expect(table.status == 0, "\(table)")
            #expect(table.stdoutBytes.starts(with: path + [0x0A]))
            #expect(table.stdout.contains("  labels\n"))
            let json = try await run(["show", "--format", "json"], rawLast: path)
            #expect(try JSONDecoder().decode(Hit.self, from: Data(json.stdoutBytes)).bytes == path)
        }
    }

    @Test func classifyCountsAndListsNonImages() async throws {
        let fixture = try await byteLibrary.value.fixture
        let result = try Tool.run(["classify", fixture.photos.path, "--verbose", "--format", "jsonl"])
        #expect(result.status == 2, "garbage.heic fails")
        #expect(result.stderr.contains("skipped (not an image): \(fixture.photos.path)/notes.txt\n"))
        #expect(result.stderr.contains("skipped 1 file that is not an image (no image extension or signature)\n"))
        let hits = try result.stdoutBytes.split(separator: 0x0A).map { try JSONDecoder().decode(Hit.self, from: Data($0)) }
        #expect(hits.count == 4)
        #expect(hits.filter { $0.pathBytes != nil }.count == 1)
    }

    struct Hit: Decodable {
        var path: String
        var pathBytes: String?
        var bytes: [UInt8] { pathBytes.flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? Array(path.utf8) }
    }
    struct Page: Decodable { var results: [Hit] }
}
