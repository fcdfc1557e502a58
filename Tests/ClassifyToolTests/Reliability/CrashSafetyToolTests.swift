import ClassifyTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// `classify-tool index` killed with SIGKILL at random moments (fixed seed), then run to the
    /// end: the database stays sound, every file is indexed exactly once with the labels a clean
    /// run gives, and nothing finished before a kill is classified again.
    @Suite struct CrashSafety {
        /// Kills that must land on a running index process.
        static let requiredKills = 24

        @Test(.timeLimit(.minutes(10)))
        func killedRunsResumeWithoutLossOrRework() throws {
            let scratch = try ReliabilityScratch("kill")
            let folder = try scratch.folder("photos")
            var sources: [String: Int] = [:]   // path -> which of the three photos it copies
            func addPhotos(_ numbers: Range<Int>) throws {
                for number in numbers {
                    let url = try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "photo-\(number).jpg"))
                    sources[url.path] = number % 3
                }
            }
            try addPhotos(0..<60)

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

            // Killed runs on a database that does not exist yet, so early kills land in creating
            // the schema and writing the taxonomy too.
            let database = scratch.url.appending(path: "killed.sqlite")
            var generator = SeededRandom(seed: 0x5EED_2025)
            var kills = 0, runs = 0
            var finished: [String: ReliabilityFixtures.ImageRow] = [:]
            var log: [String] = []
            // Seconds from start until a run holds the writer lock (model loaded, index open): kill
            // moments scale with it, so slower builds (sanitizers) still get kills after commits.
            var startup = 0.5
            // Seconds after start-up within which kills are drawn. A run killed late in the window
            // without having committed anything widens it, so a build that needs longer per image
            // (sanitizers, debug C kernels) still gets kills after commits; a fast build keeps 2.5 s.
            var window = 2.5
            while kills < Self.requiredKills {
                runs += 1
                try #require(runs <= 4 * Self.requiredKills, "too many runs ended before their kill:\n\(log.joined(separator: "\n"))")
                let hasTaxonomy = try FileManager.default.fileExists(atPath: database.path)
                    && ReliabilityFixtures.read(database) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels") ?? 0 } > 0
                let child = try ReliabilityProcess.start(["index", folder.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url)
                let started = Date()
                var delay: Double
                if hasTaxonomy || kills < 3 {
                    // The first runs also land in creating the schema and writing the taxonomy.
                    delay = Double.random(in: 0.05...(hasTaxonomy ? startup + window : 8.0), using: &generator)
                } else {
                    // Three kills before the taxonomy was complete: let this run write it, then
                    // kill it at a random moment after.
                    while child.isRunning && !(Concurrency.holdsLock(pid: child.pid, path: database.path + ".lock")) && Date().timeIntervalSince(started) < 600 {
                        usleep(5_000)
                    }
                    delay = Date().timeIntervalSince(started) + Double.random(in: 0.05...window, using: &generator)
                }
                var sawLock = false
                while child.isRunning && Date().timeIntervalSince(started) < delay {
                    if !sawLock && Concurrency.holdsLock(pid: child.pid, path: database.path + ".lock") {
                        sawLock = true
                        if hasTaxonomy { startup = max(startup, Date().timeIntervalSince(started)) }
                    }
                    usleep(5_000)
                }
                let killed = child.kill(SIGKILL)
                let outcome = child.wait(timeout: 120)
                if killed {
                    kills += 1
                    #expect(outcome.signalled && outcome.status == SIGKILL, "\(outcome)")
                } else {
                    #expect(outcome.exited(0), "run \(runs) ended by itself: \(outcome)")
                }
                guard FileManager.default.fileExists(atPath: database.path) else {
                    log.append("run \(runs): killed after \(delay) s, before the database existed")
                    continue
                }
                // The file is sound, the taxonomy all there or not at all, and every row whole.
                #expect(try ReliabilityFixtures.integrity(database) == "ok", "after run \(runs)")
                let labels = try ReliabilityFixtures.read(database) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels") ?? 0 }
                #expect(labels == 0 || labels == labelCount, "after run \(runs): \(labels) labels")
                let rows = try ReliabilityFixtures.images(database)
                let stored = try ReliabilityFixtures.labels(database)
                for (path, row) in rows {
                    #expect(row.errorStage == nil, "\(path): \(row.errorReason ?? "")")
                    #expect(stored[path] == referenceLabels[referencePaths[sources[path] ?? -1] ?? ""], "\(path) after run \(runs)")
                }
                // Nothing finished before this run was classified again by it.
                for (path, row) in finished {
                    #expect(rows[path] == row, "\(path) was written again by run \(runs)")
                }
                log.append("run \(runs): \(killed ? "killed" : "ended") after \(String(format: "%.2f", delay)) s\(sawLock ? " (writing)" : "") with \(rows.count) images indexed (+\(rows.count - finished.count))")
                if killed && hasTaxonomy && delay >= startup + window / 2 && rows.count == finished.count && finished.count < sources.count {
                    window = min(window * 1.5, 120)
                }
                finished = rows
                // Keep work for the remaining kills, however fast this machine is.
                if finished.count == sources.count && kills < Self.requiredKills {
                    try addPhotos(sources.count..<sources.count + 12)
                }
            }
            #expect(kills >= Self.requiredKills)
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
            print("crash safety: \(kills) kills in \(runs) runs, \(sources.count) files\n" + log.joined(separator: "\n"))
        }
    }
}
