import ClassifyTestSupport
import Foundation
import Testing

/// `classify-tool copy` between SQLite and the throwaway PostgreSQL cluster of Scripts/dev-postgres
/// (skipped, saying why, where PostgreSQL or psql is not installed).
@Suite(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
struct CopyCommandTests {
    @Test func anIndexGoesToPostgreSQLAndBackUnchanged() throws {
        let fixture = try Fixture.empty("copy")
        defer { fixture.remove() }
        let original = fixture.root.appending(path: "original.sqlite").path
        let back = fixture.root.appending(path: "back.sqlite").path
        let built = try Tool.run(["index", "--images", "1000", "--db", original], executable: Tool.benchExecutable)
        try #require(built.status == 0, "\(built.stderr)")
        let database = try DevPostgres.freshDatabase()

        let there = try Tool.run(["copy", "--from", original, "--to", database])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stdout.hasPrefix("copied 1000 images, "), "\(there.stdout)")
        let again = try Tool.run(["copy", "--from", original, "--to", database])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already holds an index"), "\(again.stderr)")

        let returned = try Tool.run(["copy", "--from", database, "--to", back])
        #expect(returned.status == 0, "\(returned.stderr)")
        #expect(returned.stdout.hasPrefix("copied 1000 images, "), "\(returned.stdout)")
        let overwrite = try Tool.run(["copy", "--from", database, "--to", back])
        #expect(overwrite.status == 1)
        #expect(overwrite.stderr.contains("already exists"), "\(overwrite.stderr)")

        // The same answers from PostgreSQL as from the original.
        for arguments in [["search", "thing_0 OR group_0 OR category_1", "--limit", "1000"], ["search", "group_0 -thing_0", "--sort", "path", "--facets", "5"]] {
            let a = try Tool.run(arguments + ["--db", original]), b = try Tool.run(arguments + ["--db", database])
            #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
            #expect(a.stdout == b.stdout && a.stderr == b.stderr, "\(arguments)")
            #expect(!a.lines.isEmpty)
        }
        let postgresStats = try Tool.run(["stats", "--json", "--db", database])
        let sqliteStats = try Tool.run(["stats", "--json", "--db", original])
        for key in ["images", "failed", "labels", "labelsInUse", "observations", "models", "faces"] {
            let a = try JSONSerialization.jsonObject(with: Data(sqliteStats.stdout.utf8)) as? [String: Any]
            let b = try JSONSerialization.jsonObject(with: Data(postgresStats.stdout.utf8)) as? [String: Any]
            let sorted = { (value: Any?) in
                String(decoding: (try? JSONSerialization.data(withJSONObject: [key: value ?? "-"], options: .sortedKeys)) ?? Data(), as: UTF8.self)
            }
            #expect(sorted(a?[key]) == sorted(b?[key]), "\(key): \(postgresStats.stderr)")
        }
        #expect(postgresStats.stdout.contains(database.replacingOccurrences(of: "/", with: "\\/")) || postgresStats.stdout.contains(database), "\(postgresStats.stdout)")

        // The same answers from both files.
        for arguments in [["search", "thing_0 OR group_0 OR category_1", "--limit", "1000"], ["search", "group_0 -thing_0", "--sort", "path"], ["stats", "--json"]] {
            let a = try Tool.run(arguments + ["--db", original]), b = try Tool.run(arguments + ["--db", back])
            #expect(a.status == b.status, "\(arguments)")
            let strip = { (text: String) in text.replacingOccurrences(of: original, with: "DB").replacingOccurrences(of: back, with: "DB") }
            if arguments[0] == "stats" {
                let decode = { (text: String) throws -> [String: Any] in
                    var object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
                    object["database"] = nil
                    object["databaseBytes"] = nil
                    return object
                }
                #expect(NSDictionary(dictionary: try decode(a.stdout)) == NSDictionary(dictionary: try decode(b.stdout)))
            } else {
                #expect(strip(a.stdout) == strip(b.stdout), "\(arguments)")
                #expect(!a.lines.isEmpty, "\(arguments): \(a.stderr)")
            }
        }
    }

    @Test func aFileCopiesIntoANewFileAndBadPairsAndUnreachableServersAreClearErrors() throws {
        let fixture = try Fixture.empty("copy-errors")
        defer { fixture.remove() }
        let file = fixture.root.appending(path: "a.sqlite").path
        let copyPath = fixture.root.appending(path: "copies/b.sqlite").path
        let missing = try Tool.run(["copy", "--from", file, "--to", copyPath])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no index at \(file)"), "\(missing.stderr)")
        let same = try Tool.run(["copy", "--from", file, "--to", file])
        #expect(same.status == 1)
        #expect(same.stderr.contains("the same index"), "\(same.stderr)")
        let unsupported = try Tool.run(["copy", "--from", file, "--to", "mysql://root:hunter2@h/db"])
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.contains("unsupported kind (mysql://)") && !unsupported.stderr.contains("hunter2"), "\(unsupported.stderr)")

        let built = try Tool.run(["index", "--images", "1000", "--db", file], executable: Tool.benchExecutable)
        try #require(built.status == 0, "\(built.stderr)")
        // SQLite into a new SQLite file (a folder created for it): the same answers.
        let copied = try Tool.run(["copy", "--from", file, "--to", copyPath])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("copied 1000 images"), "\(copied.stdout)")
        for arguments in [["search", "thing_0 OR group_0 OR category_1", "--limit", "1000"], ["search", "group_0 -thing_0", "--sort", "path", "--facets", "5"]] {
            let a = try Tool.run(arguments + ["--db", file]), b = try Tool.run(arguments + ["--db", copyPath])
            #expect(a.status == 0 && b.status == 0, "\(arguments): \(a.stderr) \(b.stderr)")
            #expect(a.stdout == b.stdout && !a.lines.isEmpty, "\(arguments)")
        }
        let again = try Tool.run(["copy", "--from", file, "--to", copyPath])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists; copy into a new file"), "\(again.stderr)")

        let unreachable = try Tool.run(["copy", "--from", file, "--to", "postgres://classify:hunter2@127.0.0.1:1/photos"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot reach the PostgreSQL server at 127.0.0.1:1"), "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("hunter2"))
    }
}

/// The cluster of Scripts/dev-postgres (started once per test process, by the test support's
/// `DevPostgres`, shared with the other test targets) and psql to make databases.
enum DevPostgres {
    static let started: (url: String?, problem: String) = {
        let psqlFound = ["/usr/bin/psql", "/usr/local/bin/psql"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        guard psqlFound else { return (nil, "psql is not installed") }
        switch ClassifyTestSupport.DevPostgres.start() {
        case .success(let url): return (url, "")
        case .failure(let failure): return (nil, failure.message)
        }
    }()

    static var url: String? { started.url }

    static var skipReason: Comment {
        "PostgreSQL is not available (\(started.problem.trimmingCharacters(in: .whitespacesAndNewlines))); install it with Scripts/bootstrap --postgres"
    }

    /// A new, empty database's URL.
    static func freshDatabase() throws -> String {
        let url = try #require(url)
        let name = "copy_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let created = run("/usr/bin/env", ["psql", url, "-qc", "CREATE DATABASE \(name)"])
        try #require(created.status == 0, "\(created.stderr)")
        let slash = try #require(url.lastIndex(of: "/"))
        return url[...slash] + name
    }

    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        guard let result = try? Tool.capture(process, whileRunning: { _ in }) else { return (-1, "", "cannot run \(executable)") }
        return (result.status, result.stdout, result.stderr)
    }
}
