import ClassifyTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// `classify-tool index` killed with SIGKILL at chosen moments of its run, then run to the
    /// end: the database stays sound, every file is indexed exactly once with the labels a clean
    /// run gives, and nothing finished before a kill is classified again.
    ///
    /// The kills are not drawn on a clock: each run is told through `CLASSIFY_CRASH_AT` (see
    /// `CrashPoints` in ClassifySupport) at which pass through a named point it kills itself with
    /// SIGKILL, so every kill lands where it was meant to on a machine of any speed, in creating
    /// the schema, writing the taxonomy, in the middle of a batch and between batches.
    @Suite struct CrashSafety {
        /// One planned kill: the point and the pass through it (1-based) at which the run dies.
        struct Kill: CustomStringConvertible {
            var point: String
            var pass: Int
            var description: String { "\(point):\(pass)" }
        }

        /// New photos each run of the batch phase is given at least: with `batchSize` files per
        /// transaction that is at least 12 entries and 3 commits, so every kill below lands.
        static let photosPerRun = 12
        static let batchSize = 4

        /// The batch phase: kills in the middle of a batch (`entry:N`, before the commit of the
        /// batch holding the N-th file of the run) and between batches (`commit:N`), in an order
        /// that leaves each run a different number of files committed.
        static let batchKills: [Kill] = [
            ("entry", 1), ("commit", 1), ("entry", 6), ("commit", 3), ("entry", 4), ("commit", 2),
            ("entry", 12), ("entry", 9), ("commit", 1), ("entry", 3), ("commit", 2), ("entry", 7),
            ("commit", 3), ("entry", 5), ("entry", 11), ("commit", 1), ("entry", 8), ("commit", 2),
            ("entry", 2), ("commit", 3),
        ].map { Kill(point: $0.0, pass: $0.1) }

        @Test(.timeLimit(.minutes(20)))
        func killedRunsResumeWithoutLossOrRework() throws {
            let scratch = try ReliabilityScratch("kill")
            let folder = try scratch.folder("photos")
            var sources: [String: Int] = [:]   // path -> which of the three photos it copies
            func addPhotos(_ count: Int) throws {
                for number in sources.count..<sources.count + count {
                    let url = try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "photo-\(number).jpg"))
                    sources[url.path] = number % 3
                }
            }
            try addPhotos(Self.photosPerRun)

            // The labels a clean run gives each of the three photos (every copy has its pixels).
            let referenceFolder = try scratch.folder("reference")
            var referencePaths: [Int: String] = [:]
            for number in 0..<3 {
                referencePaths[number] = try ReliabilityFixtures.photoCopy(number, to: referenceFolder.appending(path: "\(number).jpg")).path
            }
            let referenceDatabase = try ReliabilityFixtures.freshDatabase(in: scratch, name: "reference.sqlite")
            let clean = try ReliabilityProcess.run(["index", referenceFolder.path, "--db", referenceDatabase.path, "--jobs", "2"], scratch: scratch.url)
            try #require(clean.exited(0), "\(clean)")
            let referenceLabels = try ReliabilityFixtures.labels(referenceDatabase)
            let referenceRows = try ReliabilityFixtures.images(referenceDatabase)
            let labelCount = try ReliabilityFixtures.read(referenceDatabase) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels")! }
            let migrationCount = try ReliabilityFixtures.read(referenceDatabase) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations")! }
            // The taxonomy transaction passes its crash point after every 100 labels and at its end.
            let taxonomyPasses = (labelCount - 1) / 100 + 1

            // Killed runs on a database that does not exist yet: first in each schema migration,
            // then at the start, middle and end of the taxonomy, then in and between batches.
            let setupKills = [Kill(point: "schema", pass: 1), Kill(point: "schema", pass: migrationCount)]
                + [Kill(point: "taxonomy", pass: 1), Kill(point: "taxonomy", pass: taxonomyPasses / 2), Kill(point: "taxonomy", pass: taxonomyPasses)]
            let plan = setupKills + Self.batchKills
            #expect(plan.count >= 24)

            let database = scratch.url.appending(path: "killed.sqlite")
            var finished: [String: ReliabilityFixtures.ImageRow] = [:]
            var log: [String] = []
            var killsByPoint: [String: Int] = [:]
            for (number, kill) in plan.enumerated() {
                let run = number + 1
                // Every batch-phase run has at least `photosPerRun` files to write.
                if finished.count > sources.count - Self.photosPerRun { try addPhotos(Self.photosPerRun) }
                var environment = ReliabilityProcess.environment(home: scratch.url)
                environment["CLASSIFY_CRASH_AT"] = kill.description
                let outcome = try ReliabilityProcess.start(
                    ["index", folder.path, "--db", database.path, "--jobs", "2", "--batch-size", "\(Self.batchSize)"],
                    scratch: scratch.url, environment: environment
                ).wait(timeout: 300)
                try #require(outcome.signalled && outcome.status == SIGKILL, "run \(run) was to die at \(kill): \(outcome)\n\(log.joined(separator: "\n"))")
                killsByPoint[kill.point, default: 0] += 1

                // The file is sound, the taxonomy all there or not at all, and every row whole.
                #expect(try ReliabilityFixtures.integrity(database) == "ok", "after run \(run)")
                let labels = try ReliabilityFixtures.read(database) { db in
                    try db.tableExists("labels") ? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels") ?? 0 : 0
                }
                #expect(labels == 0 || labels == labelCount, "after run \(run): \(labels) labels")
                if kill.point == "schema" || kill.point == "taxonomy" { #expect(labels == 0, "run \(run) died before committing the taxonomy") }
                let rows = try ReliabilityFixtures.read(database) { db in try db.tableExists("images") } ? try ReliabilityFixtures.images(database) : [:]
                let stored = rows.isEmpty ? [:] : try ReliabilityFixtures.labels(database)
                for (path, row) in rows {
                    #expect(row.errorStage == nil, "\(path): \(row.errorReason ?? "")")
                    #expect(stored[path] == referenceLabels[referencePaths[sources[path] ?? -1] ?? ""], "\(path) after run \(run)")
                }
                // Nothing finished before this run was classified again by it.
                for (path, row) in finished {
                    #expect(rows[path] == row, "\(path) was written again by run \(run)")
                }
                // A kill between batches keeps every batch committed before it; one in a batch
                // loses only that batch.
                let added = rows.count - finished.count
                switch kill.point {
                case "commit": #expect(added >= kill.pass, "run \(run) died after commit \(kill.pass) with \(added) files added")
                case "entry": #expect(added < kill.pass, "run \(run) died writing file \(kill.pass) with \(added) files added")
                default: #expect(added == 0)
                }
                log.append("run \(run): killed at \(kill) with \(rows.count) images indexed (+\(added))")
                finished = rows
            }
            #expect(killsByPoint["schema", default: 0] >= 2 && killsByPoint["taxonomy", default: 0] >= 3)
            #expect(killsByPoint["entry", default: 0] >= 8 && killsByPoint["commit", default: 0] >= 8)
            #expect(finished.count > 0, "no kill came after a commit:\n\(log.joined(separator: "\n"))")

            // The last run finishes: everything finished before is unchanged, the rest is new.
            let last = try ReliabilityProcess.run(["index", folder.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url)
            #expect(last.exited(0), "\(last)")
            #expect(last.lines.first?.contains(" \(sources.count - finished.count) new, 0 updated, 0 moved, 0 copied, 0 touched, \(finished.count) unchanged, 0 removed, 0 failed") == true, "\(last)")
            #expect(try ReliabilityFixtures.integrity(database) == "ok")
            let rows = try ReliabilityFixtures.images(database)
            let stored = try ReliabilityFixtures.labels(database)
            #expect(Set(rows.keys) == Set(sources.keys))
            for (path, source) in sources {
                let reference = referencePaths[source]!
                #expect(stored[path] == referenceLabels[reference], "\(path)")
                #expect(rows[path]?.featurePrint == referenceRows[reference]?.featurePrint, "\(path)")
                #expect(rows[path]?.errorStage == nil)
            }
            for (path, row) in finished { #expect(rows[path] == row, "\(path) was written again by the last run") }
            // The counts the index keeps per label agree with its rows.
            let drift = try ReliabilityFixtures.read(database) { db in
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM labels AS l
                    WHERE l.image_count <> (SELECT COUNT(*) FROM observations AS o WHERE o.label_id = l.id)
                    """)
            }
            #expect(drift == 0)
            print("crash safety: \(plan.count) kills (\(killsByPoint.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), \(sources.count) files\n" + log.joined(separator: "\n"))
        }

        /// A malformed crash point is refused before anything runs, rather than ignored (a test
        /// that meant to kill a run would otherwise pass without a kill).
        @Test func malformedCrashPointIsRefused() throws {
            let scratch = try ReliabilityScratch("crash-point")
            var environment = ReliabilityProcess.environment(home: scratch.url)
            environment["CLASSIFY_CRASH_AT"] = "entry"
            let outcome = try ReliabilityProcess.start(["stats", "--db", scratch.url.appending(path: "x.sqlite").path], scratch: scratch.url, environment: environment).wait(timeout: 120)
            #expect(outcome.exited(1), "\(outcome)")
            #expect(outcome.stderr.contains("CLASSIFY_CRASH_AT=entry is not POINT:N[:SIGNAL]"), "\(outcome.stderr)")
        }
    }
}
