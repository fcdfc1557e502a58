import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `classify-tool serve` as a person runs it: the URL on the first line, pages over the index,
/// Ctrl-C stops it cleanly.
@Suite struct ServeCommandTests {
    @Test func servesTheIndexPrintsItsURLFirstAndStopsOnControlC() async throws {
        let fixture = try Fixture.manyPhotos(3)
        defer { fixture.remove() }
        let indexed = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
        #expect(indexed.status == 0)

        let (process, out, err) = try Self.launch(["serve", "--db", fixture.database.path, "--port", "0", "--cache-dir", fixture.root.appending(path: "cache").path], fixture)
        defer { if process.isRunning { process.terminate() } }

        // The first line is the URL; reading blocks until the server has bound its port.
        let firstLine = try #require(Self.readLine(out.fileHandleForReading), "serve printed nothing")
        let url = try #require(URL(string: firstLine))
        #expect(url.scheme == "http" && url.host == "127.0.0.1" && (url.port ?? 0) > 0, "\(firstLine)")

        let (body, response) = try await URLSession.shared.data(from: url.appending(path: "api/stats"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let stats = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(stats?["images"] as? Int == 3)
        let (page, pageResponse) = try await URLSession.shared.data(from: url)
        #expect((pageResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff")
        #expect(String(decoding: page, as: UTF8.self).contains("3 photos"))

        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!stderr.contains("warning"), "\(stderr)")
    }

    @Test func withoutAnIndexItSaysHowToMakeOne() throws {
        let fixture = try Fixture.empty("serve")
        defer { fixture.remove() }
        let result = try Tool.run(["serve", "--db", fixture.database.path, "--port", "0"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no index at \(fixture.database.path); build one with: classify-tool index FOLDER"))
        let badPort = try Tool.run(["serve", "--port", "70000"])
        #expect(badPort.status == 1 && badPort.stderr.contains("--port takes 0...65535"))
    }

    /// `serve --db postgres://...` over a copied index: the same statistics, and the URL's password
    /// nowhere in what it prints or serves.
    @Test(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
    func servesAPostgreSQLIndexWithoutShowingThePassword() async throws {
        let fixture = try Fixture.empty("serve-postgres")
        defer { fixture.remove() }
        let original = fixture.root.appending(path: "original.sqlite").path
        let built = try Tool.run(["index", "--images", "1000", "--db", original], executable: Tool.benchExecutable)
        try #require(built.status == 0, "\(built.stderr)")
        let database = try DevPostgres.freshDatabase()
        try #require(try Tool.run(["copy", "--from", original, "--to", database]).status == 0)
        // The cluster trusts every local connection, so any password gets in.
        let withPassword = database.replacingOccurrences(of: "postgres://classify@", with: "postgres://classify:hunter2secret@")

        let (process, out, err) = try Self.launch(
            ["serve", "--db", withPassword, "--port", "0", "--root", "pics=\(fixture.root.path)", "--cache-dir", fixture.root.appending(path: "cache").path],
            fixture)
        defer { if process.isRunning { process.terminate() } }
        let firstLine = try #require(Self.readLine(out.fileHandleForReading), "serve printed nothing")
        let url = try #require(URL(string: firstLine))
        let (body, response) = try await URLSession.shared.data(from: url.appending(path: "api/stats"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let stats = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(stats?["images"] as? Int == 1000)
        #expect(stats?["database"] as? String == database + "?sslmode=prefer")
        let (page, _) = try await URLSession.shared.data(from: url.appending(path: "stats"))
        #expect(!String(decoding: page, as: UTF8.self).contains("hunter2secret"))

        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile() + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("serving postgres://classify@"), "\(printed)")
        #expect(!printed.contains("hunter2secret"), "\(printed)")

        let badRoot = try Tool.run(["serve", "--db", withPassword, "--root", "no good=/tmp"])
        #expect(badRoot.status != 0 && badRoot.stderr.contains("--root no good=/tmp: "), "\(badRoot.stderr)")
        #expect(!badRoot.stderr.contains("hunter2secret"))
    }

    /// Starts the tool with `arguments` in the fixture's environment, its output on pipes.
    static func launch(_ arguments: [String], _ fixture: Fixture) throws -> (Process, out: Pipe, err: Pipe) {
        let process = Process()
        process.executableURL = Tool.executable
        process.arguments = arguments
        process.environment = Tool.environment(dataHome: fixture.dataHome)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// One line from `handle` (without the newline), nil when it closes first.
    static func readLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: 1)
            guard let byte = data.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
