import Foundation
import Testing

/// `labels`, `export`, `duplicates` and `tag` on PostgreSQL: a folder indexed into SQLite, copied
/// into a fresh PostgreSQL database, and every command run on both with the same output
/// (skipped, saying why, where PostgreSQL or psql is not installed).
@Suite(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
struct PostgresCommandsTests {
    /// Six photos (each test photo twice, different bytes, same pixels: three pairs of near-duplicates).
    static func indexedCopy() throws -> (fixture: Fixture, sqlite: [String], postgres: [String]) {
        let fixture = try Fixture.manyPhotos(6)
        let indexed = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
        try #require(indexed.status == 0, "\(indexed.stderr)")
        let database = try DevPostgres.freshDatabase()
        let copied = try Tool.run(["copy", "--from", fixture.database.path, "--to", database])
        try #require(copied.status == 0, "\(copied.stderr)")
        return (fixture, ["--db", fixture.database.path], ["--db", database])
    }

    @Test func readingCommandsPrintTheSameOnBothBackends() throws {
        let (fixture, sqlite, postgres) = try Self.indexedCopy()
        defer { fixture.remove() }
        let commands: [[String]] = [
            ["labels", "--used"], ["labels", "--used", "--format", "json"], ["labels", "cat"], ["labels", "cats"], ["labels", "beach"],
            ["export", "--format", "csv"], ["export", "--format", "jsonl", "--filter", "none"], ["export", "cat", "--format", "csv"],
            ["export", "--xmp", "--dry-run"],
            ["duplicates"], ["duplicates", "--format", "json"], ["duplicates", "--pairs", "--threshold", "0.5"],
            ["duplicates", "--query", "cat"],
        ]
        for arguments in commands {
            let a = try Tool.run(arguments + sqlite), b = try Tool.run(arguments + postgres)
            #expect(a.status == 0 && b.status == 0, "\(arguments): \(a.stderr) \(b.stderr)")
            #expect(!a.stdout.isEmpty, "\(arguments)")
            #expect(b.stdout == a.stdout, "\(arguments)")
            #expect(b.stderr == a.stderr, "\(arguments)")
        }
        let groups = try Tool.run(["duplicates", "--format", "json"] + postgres)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(groups.stdout.utf8)) as? [[String: Any]])
        #expect(decoded.count == 3, "each photo and its copy: \(groups.stdout)")
        let used = try Tool.run(["labels", "--used"] + postgres)
        #expect(used.stdout.contains("; 2 images)"), "\(used.stdout)")
    }

    @Test func correctionsHaveTheSameEffectOnBothBackends() throws {
        let (fixture, sqlite, postgres) = try Self.indexedCopy()
        defer { fixture.remove() }
        let first = fixture.photos.appending(path: "photo-000.jpg").path
        let second = fixture.photos.appending(path: "photo-003.jpg").path
        let steps: [[String]] = [
            ["tag", "add", first, second, "grandma"], ["tag", "add", first, "grandma"],
            ["tag", "remove", second, "cat"], ["tag", "add", first, "space_shuttle"], ["tag", "add", second, "rocket"], ["tag", "clear", second, "cat"],
            ["tag", "add", fixture.photos.appending(path: "missing.jpg").path, "grandma"],
        ]
        for step in steps {
            let a = try Tool.run(step + sqlite), b = try Tool.run(step + postgres)
            #expect(a.status == b.status && b.stdout == a.stdout && b.stderr == a.stderr, "\(step): \(a.stderr) | \(b.stderr)")
            for arguments in [["search", "grandma", "--limit", "100"], ["search", "cat", "--limit", "100"], ["search", "space_shuttle", "--limit", "100"],
                              ["labels", "--used"], ["export", "--format", "jsonl"], ["show", first], ["show", second]] {
                let a = try Tool.run(arguments + sqlite), b = try Tool.run(arguments + postgres)
                #expect(b.stdout == a.stdout, "after \(step): \(arguments)")
            }
        }
        // The corrections themselves (their dates aside).
        let list = { (db: [String]) throws -> [String] in
            try Tool.run(["tag", "list"] + db).lines.map { $0.split(separator: " ", maxSplits: 1).dropFirst().joined() }.sorted()
        }
        let listed = try list(postgres)
        #expect(listed == (try list(sqlite)))
        #expect(listed.count == 3, "\(listed)")
        #expect(try Tool.run(["search", "grandma"] + postgres).lines.sorted() == [first, second].sorted())
    }
}
