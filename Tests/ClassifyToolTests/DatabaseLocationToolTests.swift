import Foundation
import Testing

/// `--db` and `CLASSIFY_DB`: paths are SQLite files; a URL must be of a scheme the tool knows,
/// never a file created in a folder named after the scheme; no password is ever printed.
@Suite struct DatabaseLocationToolTests {
    @Test func urlsOfUnsupportedSchemesFailWithoutCreatingAnything() throws {
        let fixture = try Fixture.empty("db-scheme")
        defer { fixture.remove() }
        for command in [["index", fixture.photos.path], ["search", "cat"], ["stats"], ["labels", "--used"]] {
            let result = try Tool.run(command + ["--db", "mysql://root:hunter2@localhost/photos"], in: fixture.root,
                                      environment: Tool.environment(dataHome: fixture.dataHome))
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("unsupported kind (mysql://)"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"), "\(result.stderr)")
        }
        let created = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
        #expect(created.sorted() == ["photos"], "nothing but the fixture's own folder: \(created)")
    }

    @Test func postgresURLsAreNotFilesAndNeverShowThePassword() throws {
        let fixture = try Fixture.empty("db-postgres")
        defer { fixture.remove() }
        let result = try Tool.run(["stats", "--db", "postgres://classify:hunter2@127.0.0.1:1/photos"], in: fixture.root,
                                  environment: Tool.environment(dataHome: fixture.dataHome))
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot reach the PostgreSQL server at 127.0.0.1:1"), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
        for arguments in [["labels", "--used"], ["export", "--format", "csv"], ["duplicates"], ["tag", "list"], ["tag", "add", "a.jpg", "dog"], ["serve", "--port", "0"]] {
            let other = try Tool.run(arguments + ["--db", "postgres://classify:hunter2@127.0.0.1:1/photos"], in: fixture.root,
                                     environment: Tool.environment(dataHome: fixture.dataHome))
            #expect(other.status == 1, "\(arguments)")
            #expect(other.stderr.contains("cannot reach the PostgreSQL server at 127.0.0.1:1"), "\(arguments): \(other.stderr)")
            #expect(!other.stderr.contains("hunter2") && !other.stdout.contains("hunter2"), "\(arguments): \(other.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.root.appending(path: "postgres:").path), "no folder named after the scheme")

        let malformed = try Tool.run(["stats", "--db", "postgres://classify:hunter2@127.0.0.1:notaport/photos"], in: fixture.root,
                                     environment: Tool.environment(dataHome: fixture.dataHome))
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("not a number"), "\(malformed.stderr)")
        #expect(!malformed.stderr.contains("hunter2"), "\(malformed.stderr)")
    }

    @Test func classifyDBNamesTheIndexAndDBWins() throws {
        let fixture = try Fixture.empty("db-environment")
        defer { fixture.remove() }
        let fromEnvironment = fixture.root.appending(path: "from-environment.sqlite").path
        let environment = Tool.environment(dataHome: fixture.dataHome, extra: ["CLASSIFY_DB": fromEnvironment])
        let stats = try Tool.run(["stats"], environment: environment)
        #expect(stats.status == 1)
        #expect(stats.stderr.contains("no index at \(fromEnvironment)"), "\(stats.stderr)")

        let fromOption = fixture.root.appending(path: "from-option.sqlite").path
        let overridden = try Tool.run(["stats", "--db", fromOption], environment: environment)
        #expect(overridden.stderr.contains("no index at \(fromOption)"), "\(overridden.stderr)")

        let unsupported = try Tool.run(["stats"], environment: Tool.environment(dataHome: fixture.dataHome, extra: ["CLASSIFY_DB": "redis://h/0"]))
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.contains("CLASSIFY_DB"), "\(unsupported.stderr)")
        #expect(unsupported.stderr.contains("unsupported kind (redis://)"), "\(unsupported.stderr)")
    }
}
