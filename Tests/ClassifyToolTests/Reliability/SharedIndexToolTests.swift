import ClassifyTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// `classify-tool index` on a shared PostgreSQL index (the throwaway clusters of
    /// Scripts/dev-postgres): several indexers at once on one folder, some killed with SIGKILL in
    /// the middle of a write or between writes, then a final run; a server restarted during a
    /// run; a server that cannot be reached. Every file must end in the index exactly once, with
    /// the labels a SQLite index of the same folder holds, and the label counts must add up.
    ///
    /// The kills are placed with `CLASSIFY_CRASH_AT` (see `CrashPoints`), not on a clock.
    /// Skipped, saying why, where PostgreSQL is not installed.
    @Suite(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
    struct IndexWriter {
        static let photoCount = 18

        /// `count` distinct copies of the three test photos in `folder`.
        static func photos(_ count: Int, in folder: URL) throws -> [String] {
            try (0..<count).map { try ReliabilityFixtures.photoCopy($0, to: folder.appending(path: String(format: "photo-%02d.jpg", $0))).lastPathComponent }
        }

        /// Runs SQL with psql and returns its rows, fields separated by `|`.
        static func sql(_ url: String, _ statement: String) throws -> [String] {
            let result = DevPostgres.run("/usr/bin/env", ["psql", url, "-At", "-v", "ON_ERROR_STOP=1", "-c", statement])
            try #require(result.status == 0, "psql: \(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }

        /// (file name, label, best, confidence) of every observation, sorted, from a PostgreSQL index.
        static func observations(_ url: String) throws -> [String] {
            try sql(url, """
                SELECT regexp_replace(i.path, '^.*/', '') || ' ' || l.identifier || ' ' || o.best || ' ' || COALESCE(o.confidence::text, '-')
                FROM observations AS o JOIN images AS i ON i.id = o.image_id JOIN labels AS l ON l.id = o.label_id
                """).sorted()
        }

        /// The same from a SQLite index.
        static func observations(_ database: URL) throws -> [String] {
            try ReliabilityFixtures.read(database) { db in
                try Row.fetchAll(db, sql: """
                    SELECT i.path, l.identifier, o.best, o.confidence FROM observations AS o
                    JOIN images AS i ON i.id = o.image_id JOIN labels AS l ON l.id = o.label_id
                    """).map { row in
                    let path: String = row[0], label: String = row[1], best: Int = row[2], confidence: Int? = row[3]
                    return "\(URL(fileURLWithPath: path).lastPathComponent) \(label) \(best) \(confidence.map(String.init) ?? "-")"
                }.sorted()
            }
        }

        /// What must hold of any PostgreSQL index: counts that add up, packed labels that match
        /// the observations, nothing left queued or claimed.
        static func checkIntegrity(_ url: String) throws {
            #expect(try sql(url, """
                SELECT l.identifier FROM labels AS l
                WHERE l.image_count <> (SELECT COUNT(*) FROM observations AS o WHERE o.label_id = l.id)
                """) == [], "label counts match the observations")
            #expect(try sql(url, """
                SELECT i.path FROM images AS i LEFT JOIN image_labels AS p ON p.image_id = i.id
                WHERE COALESCE(length(p.packed), 0) / 8 <> (SELECT COUNT(*) FROM observations AS o WHERE o.image_id = i.id)
                """) == [], "packed labels match the observations")
            #expect(try sql(url, "SELECT COUNT(*) FROM observations WHERE image_id NOT IN (SELECT id FROM images)") == ["0"])
            #expect(try sql(url, "SELECT COUNT(*) FROM index_queue") == ["0"], "nothing left queued")
        }

        /// `new` and `touched` of a run's summary line.
        static func counts(_ outcome: ReliabilityProcess.Outcome) -> (new: Int, updated: Int, touched: Int)? {
            guard let line = outcome.lines.first(where: { $0.hasPrefix("done in") }) else { return nil }
            func number(before word: String) -> Int? {
                guard let range = line.range(of: " \(word)") else { return nil }
                return Int(line[..<range.lowerBound].split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "," }).last ?? "")
            }
            guard let new = number(before: "new"), let updated = number(before: "updated"), let touched = number(before: "touched") else { return nil }
            return (new, updated, touched)
        }

        @Test(.timeLimit(.minutes(20)))
        func concurrentIndexersClassifyEachFileOnce() throws {
            let scratch = try ReliabilityScratch("shared")
            let folder = try scratch.folder("photos")
            let names = try Self.photos(Self.photoCount, in: folder)
            let database = try DevPostgres.freshDatabase()
            let arguments = ["index", "--root", "library=\(folder.path)", "--db", database, "--jobs", "2", "--claim-size", "2"]
            let runs = try (0..<3).map { _ in try ReliabilityProcess.start(arguments, scratch: scratch.url) }
            let outcomes = runs.map { $0.wait(timeout: 900) }
            for outcome in outcomes { #expect(outcome.exited(0), "\(outcome)") }
            // Claims hand each file to one worker: the three runs classified it once between them.
            let counts = outcomes.compactMap(Self.counts)
            try #require(counts.count == 3, "\(outcomes)")
            #expect(counts.map(\.new).reduce(0, +) == Self.photoCount, "\(counts)")
            #expect(counts.map(\.updated).reduce(0, +) == 0, "\(counts)")

            #expect(try Self.sql(database, "SELECT path FROM images ORDER BY path") == names.map { "library:/\($0)" })
            try Self.checkIntegrity(database)
            // A second machine mounting the same library elsewhere finds every file indexed.
            let elsewhere = scratch.url.appending(path: "mounted-elsewhere")
            try FileManager.default.createSymbolicLink(at: elsewhere, withDestinationURL: folder)
            let second = try ReliabilityProcess.run(["index", "--root", "library=\(elsewhere.path)", "--db", database], scratch: scratch.url)
            #expect(second.exited(0), "\(second)")
            #expect(second.stdout.contains("0 new, 0 updated, 0 moved, 0 copied, 0 touched, \(Self.photoCount) unchanged, 0 removed"), "\(second)")
        }

        @Test(.timeLimit(.minutes(20)))
        func killedIndexersLeaveNothingLostOrDoubled() throws {
            let scratch = try ReliabilityScratch("shared-kill")
            let folder = try scratch.folder("photos")
            let names = try Self.photos(Self.photoCount, in: folder)
            let database = try DevPostgres.freshDatabase()
            // Leases long enough that a live indexer starved of CPU (a loaded CI machine) still renews
            // its claims in time; only the killed ones' claims expire. A lease taken over counts as
            // an indexer stopping on those files, and three of those fail a file.
            let arguments = ["index", "--root", "library=\(folder.path)", "--db", database, "--jobs", "2", "--claim-size", "2", "--lease-seconds", "8"]
            var environment = ReliabilityProcess.environment(home: scratch.url)
            // Two run at once and die: one in the middle of its third batch's write, one right
            // after its second commit. On PostgreSQL a batch is one pass through `entry`, so
            // between them they write at most five batches of the nine: each reaches its point
            // whichever of them claims faster. A third, unarmed, then runs alongside the leases
            // they left and must take them over once they expire.
            let plans = ["entry:3", "commit:2"]
            let killed = try plans.map { plan in
                var armed = environment
                armed["CLASSIFY_CRASH_AT"] = plan
                return try ReliabilityProcess.start(arguments, scratch: scratch.url, environment: armed)
            }
            for (plan, outcome) in zip(plans, killed.map { $0.wait(timeout: 900) }) {
                #expect(outcome.signalled && outcome.status == SIGKILL, "\(plan): \(outcome)")
            }
            let survivor = try ReliabilityProcess.start(arguments, scratch: scratch.url, environment: environment).wait(timeout: 900)
            #expect(survivor.exited(0), "\(survivor)")
            environment["CLASSIFY_CRASH_AT"] = nil
            let final = try ReliabilityProcess.start(arguments, scratch: scratch.url, environment: environment).wait(timeout: 900)
            #expect(final.exited(0), "\(final)")

            #expect(try Self.sql(database, "SELECT path FROM images ORDER BY path") == names.map { "library:/\($0)" })
            #expect(try Self.sql(database, "SELECT COUNT(*) FROM images WHERE error_stage IS NOT NULL") == ["0"])
            try Self.checkIntegrity(database)
            // The labels of a SQLite index of the same folder, file for file.
            let reference = scratch.url.appending(path: "reference.sqlite")
            let sqlite = try ReliabilityProcess.run(["index", folder.path, "--db", reference.path, "--jobs", "2"], scratch: scratch.url)
            try #require(sqlite.exited(0), "\(sqlite)")
            let expected = try Self.observations(reference)
            #expect(!expected.isEmpty)
            #expect(try Self.observations(database) == expected)

            // `show` answers the same from both (but for where the file is and when it was indexed).
            for name in [names[0], names[names.count - 1]] {
                let shared = try ReliabilityProcess.run(["show", "library:/\(name)", "--format", "json", "--db", database], scratch: scratch.url)
                let local = try ReliabilityProcess.run(["show", folder.appending(path: name).path, "--format", "json", "--db", reference.path], scratch: scratch.url)
                #expect(shared.exited(0) && local.exited(0), "\(shared)\n\(local)")
                var a = try ReliabilityFixtures.json(shared.stdout), b = try ReliabilityFixtures.json(local.stdout)
                #expect(a["path"] as? String == "library:/\(name)")
                for key in ["path", "indexed"] { a[key] = nil; b[key] = nil }
                #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b), "\(shared.stdout)\n\(local.stdout)")
            }
            // Similar images, colors and JSON pages too: the prints and colors stream from the server in blocks.
            // Images of equal score come in id order, and ids differ between the two indexes (the
            // shared one was written by racing workers), so results are compared as sets.
            let colors = try ReliabilityFixtures.read(reference) { db in
                try String.fetchAll(db, sql: "SELECT DISTINCT hex(substr(dominant_colors, 1, 3)) FROM images WHERE dominant_colors IS NOT NULL ORDER BY 1")
            }
            try #require(colors.count >= 2, "\(colors)")
            let commands: [[String]] = [
                ["similar", "library:/\(names[0])", "--limit", "50"],
                ["similar", "library:/\(names[3])", "--query", "under:library:/ cat", "--min-score", "0.2", "--format", "json"],
                ["search", "--color", colors[0], "--limit", "50"], ["search", "--color", colors[1], "--under", "library:/", "--format", "json"],
                ["search", "cat OR rocket", "--format", "json", "--facets", "5"],
            ]
            func normalized(_ output: String) throws -> String {
                guard output.hasPrefix("{") else { return output.split(separator: "\n").sorted().joined(separator: "\n") }
                var object = try ReliabilityFixtures.json(output)
                let results = try #require(object["results"] as? [[String: Any]])
                object["results"] = results.sorted { ($0["path"] as? String ?? "") < ($1["path"] as? String ?? "") }
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
            for arguments in commands {
                let shared = try ReliabilityProcess.run(arguments + ["--db", database], scratch: scratch.url)
                let local = try ReliabilityProcess.run(
                    arguments.map { $0.replacingOccurrences(of: "library:", with: folder.path) } + ["--db", reference.path], scratch: scratch.url)
                #expect(shared.exited(0) && local.exited(0), "\(arguments): \(shared)\n\(local)")
                #expect(try normalized(shared.stdout.replacingOccurrences(of: "library:", with: folder.path)) == (try normalized(local.stdout)), "\(arguments)")
                #expect(shared.stderr == local.stderr, "\(arguments)")
                #expect(!local.stdout.isEmpty && !local.stdout.contains("\"results\":[]"), "\(arguments): \(local.stdout.prefix(300))")
            }
            let missing = try ReliabilityProcess.run(["show", "library:/nowhere.jpg", "--db", database], scratch: scratch.url)
            #expect(missing.exited(1) && missing.stderr.contains("library:/nowhere.jpg is not in the index"), "\(missing)")
        }

        @Test(.timeLimit(.minutes(20)))
        func aServerRestartDuringARunIsWaitedOut() throws {
            let scratch = try ReliabilityScratch("shared-restart")
            let folder = try scratch.folder("photos")
            let names = try Self.photos(12, in: folder)
            // A cluster of its own: restarting the shared one would cut other tests' connections.
            let cluster = scratch.url.appending(path: "cluster")
            let script = ReliabilityProcess.packageRoot.appending(path: "Scripts/dev-postgres").path
            func devPostgres(_ command: String) -> (status: Int32, stdout: String, stderr: String) {
                var environment = ProcessInfo.processInfo.environment
                environment["CLASSIFY_DEV_POSTGRES_DIR"] = cluster.path
                let process = Process()
                process.executableURL = URL(fileURLWithPath: script)
                process.arguments = [command]
                process.environment = environment
                guard let result = try? Tool.capture(process, whileRunning: { _ in }) else { return (-1, "", "cannot run \(script)") }
                return (result.status, result.stdout, result.stderr)
            }
            let started = devPostgres("start")
            try #require(started.status == 0, "\(started.stderr)")
            defer { _ = devPostgres("stop") }
            let database = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

            // The run stops itself (SIGSTOP) right after its second commit; the server restarts
            // meanwhile, cutting its connections; then it goes on.
            var environment = ReliabilityProcess.environment(home: scratch.url)
            environment["CLASSIFY_CRASH_AT"] = "commit:2:STOP"
            let run = try ReliabilityProcess.start(
                ["index", "--root", "library=\(folder.path)", "--db", database, "--jobs", "2", "--claim-size", "2"],
                scratch: scratch.url, environment: environment)
            try #require(run.waitUntilStopped(), "the run never reached its second commit: \(run.wait(timeout: 1))")
            let restarted = devPostgres("restart")
            #expect(restarted.status == 0, "\(restarted.stderr)")
            run.resume()
            let outcome = run.wait(timeout: 900)
            #expect(outcome.exited(0), "\(outcome)")
            #expect(try Self.sql(database, "SELECT path FROM images ORDER BY path") == names.map { "library:/\($0)" })
            try Self.checkIntegrity(database)
            let counts = try #require(Self.counts(outcome), "\(outcome)")
            #expect(counts.new == names.count && counts.updated == 0, "\(outcome)")
        }

        @Test(.timeLimit(.minutes(5)))
        func anUnreachableServerIsAClearErrorWithoutThePassword() throws {
            let scratch = try ReliabilityScratch("shared-unreachable")
            let folder = try scratch.folder("photos")
            _ = try Self.photos(1, in: folder)
            // The process timeout is the hang guard (the connection attempt itself gives up after 10 s).
            let outcome = try ReliabilityProcess.run(
                ["index", "--root", "library=\(folder.path)", "--db", "postgres://classify:hunter2@127.0.0.1:1/photos"], scratch: scratch.url, timeout: 120)
            #expect(outcome.exited(1), "\(outcome)")
            #expect(outcome.stderr.contains("cannot reach the PostgreSQL server at 127.0.0.1:1"), "\(outcome)")
            #expect(!outcome.stderr.contains("hunter2") && !outcome.stdout.contains("hunter2"), "\(outcome)")

            let sqliteWithRoot = try ReliabilityProcess.run(["index", "--root", "library=\(folder.path)", "--db", scratch.url.appending(path: "a.sqlite").path], scratch: scratch.url)
            #expect(sqliteWithRoot.exited(1) && sqliteWithRoot.stderr.contains("the named library root library=\(folder.path) needs a shared index such as PostgreSQL"), "\(sqliteWithRoot)")
        }
    }
}
