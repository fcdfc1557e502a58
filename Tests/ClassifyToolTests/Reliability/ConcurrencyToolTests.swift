import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// `search` and `stats` while `index` writes, and two `index` runs on one database.
    @Suite struct Concurrency {
        /// True when process `pid` holds a flock on `path`, as /proc/locks shows it (read to its end:
        /// the file reports a size of 0). When the listing does not show it, a non-blocking attempt
        /// to take the lock decides (it fails only if someone holds it; taken, it is released at once).
        static func holdsLock(pid: pid_t, path: String) -> Bool {
            var info = stat()
            guard stat(path, &info) == 0 else { return false }
            let listing = FileHandle(forReadingAtPath: "/proc/locks").flatMap { try? $0.readToEnd() }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let listed = listing.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
                guard fields.count >= 6, fields[1] == "FLOCK", fields[4] == "\(pid)" else { return false }
                return fields[5].hasSuffix(":\(info.st_ino)")
            }
            if listed { return true }
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
            flock(descriptor, LOCK_UN)
            return false
        }

        @Test(.timeLimit(.minutes(20)))
        func searchWhileIndexingSeesOnlyWholeBatches() throws {
            let scratch = try ReliabilityScratch("concurrent-search")
            let folder = try scratch.folder("photos")
            for number in 0..<45 { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            let database = try ReliabilityFixtures.freshDatabase(in: scratch)
            // The run stops itself in the middle of its second batch (an open write transaction
            // with two files in it), so searches are sure to run while it writes, however fast
            // this machine classifies; then it goes on while the searches go on.
            var environment = ReliabilityProcess.environment(home: scratch.url)
            environment["CLASSIFY_CRASH_AT"] = "entry:6:STOP"
            let indexing = try ReliabilityProcess.start(
                ["index", folder.path, "--db", database.path, "--jobs", "2", "--batch-size", "4"], scratch: scratch.url, environment: environment)
            try #require(indexing.waitUntilStopped(), "the index run did not stop in its second batch: \(indexing.wait(timeout: 1))")
            var searches = 0, searchesWhileIndexing = 0, lastCount = 0
            while indexing.isRunning || searches == 0 {
                // Three searches while the run stands still in its transaction, then it resumes.
                if searches == 3 { indexing.resume() }
                let search = try ReliabilityProcess.run(["search", "--format", "json", "--limit", "1000", "--db", database.path], scratch: scratch.url, timeout: 600)
                let stillIndexing = indexing.isRunning
                searches += 1
                #expect(search.exited(0), "\(search)")
                guard search.exited(0) else { break }
                let object = try ReliabilityFixtures.json(search.stdout)
                let results = object["results"] as? [[String: Any]] ?? []
                #expect(object["total"] as? Int == results.count)
                #expect(results.count >= lastCount, "the index shrank from \(lastCount) to \(results.count)")
                if searches <= 3 {
                    // Stopped after the first whole batch, before the second committed.
                    #expect(results.count >= 1 && results.count < 6, "\(results.count) results while the second batch was open")
                }
                lastCount = results.count
                for hit in results {
                    #expect((hit["labels"] as? [Any])?.isEmpty == false, "\(hit["path"] ?? "?") has no labels")
                    #expect(hit["width"] as? Int ?? 0 >= 384)
                }
                // Row level, one snapshot: every image has its packed labels and observations,
                // and the per-label counts match the observations (a batch is all or nothing).
                let (images, packed, drift) = try ReliabilityFixtures.read(database) { db in
                    (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM images")!,
                     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image_labels")!,
                     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM labels AS l WHERE l.image_count <> (SELECT COUNT(*) FROM observations AS o WHERE o.label_id = l.id)")!)
                }
                #expect(images == packed && drift == 0, "images \(images), packed \(packed), labels with wrong counts \(drift)")
                if stillIndexing { searchesWhileIndexing += 1 }
                let stats = try ReliabilityProcess.run(["stats", "--json", "--db", database.path], scratch: scratch.url, timeout: 600)
                #expect(stats.exited(0), "\(stats)")
            }
            let outcome = indexing.wait(timeout: 300)
            #expect(outcome.exited(0), "\(outcome)")
            #expect(searchesWhileIndexing >= 1, "no search ran while the index was written (\(searches) searches)")
            let final = try ReliabilityProcess.run(["search", "--format", "json", "--limit", "1000", "--db", database.path], scratch: scratch.url)
            #expect(try ReliabilityFixtures.json(final.stdout)["total"] as? Int == 45)
            print("concurrency: \(searches) searches, \(searchesWhileIndexing) while indexing")
        }

        @Test(.timeLimit(.minutes(20)))
        func aSecondIndexRunStopsWithAClearMessageAndChangesNothing() throws {
            let scratch = try ReliabilityScratch("two-writers")
            let folder = try scratch.folder("photos")
            for number in 0..<24 { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            let database = try ReliabilityFixtures.freshDatabase(in: scratch)
            // The first run stops itself while writing its first file, holding the writer lock.
            var environment = ReliabilityProcess.environment(home: scratch.url)
            environment["CLASSIFY_CRASH_AT"] = "entry:1:STOP"
            let first = try ReliabilityProcess.start(["index", folder.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url, environment: environment)
            try #require(first.waitUntilStopped(), "the first run did not stop at its first file: \(first.wait(timeout: 1))")
            #expect(Self.holdsLock(pid: first.pid, path: database.path + ".lock"))
            let before = try ReliabilityFixtures.images(database)

            let second = try ReliabilityProcess.run(["index", folder.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url)
            #expect(second.exited(1), "\(second)")
            #expect(second.stderr.contains("error: another index run is writing to \(database.path); wait for it to finish or stop it"), "\(second.stderr)")
            #expect(second.stdout.isEmpty)
            // Whatever the first run wrote meanwhile is still there (the second wrote nothing).
            let during = try ReliabilityFixtures.images(database)
            for (path, row) in before { #expect(during[path] == row) }

            first.resume()
            let outcome = first.wait(timeout: 300)
            #expect(outcome.exited(0), "\(outcome)")
            #expect(outcome.lines.first?.contains(" 24 new, 0 updated,") == true, "\(outcome)")
            #expect(try ReliabilityFixtures.integrity(database) == "ok")
            #expect(try ReliabilityFixtures.images(database).count == 24)
            let after = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            #expect(after.exited(0) && after.lines.first?.contains(" 0 new, 0 updated, 0 moved, 0 copied, 0 touched, 24 unchanged,") == true, "\(after)")
        }

        @Test(.timeLimit(.minutes(20)))
        func runsStartedTogetherLeaveOneConsistentIndex() throws {
            let scratch = try ReliabilityScratch("racing-writers")
            let folder = try scratch.folder("photos")
            for number in 0..<12 { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            let database = try ReliabilityFixtures.freshDatabase(in: scratch)
            let runs = try (0..<3).map { _ in
                try ReliabilityProcess.start(["index", folder.path, "--db", database.path, "--jobs", "1"], scratch: scratch.url)
            }
            let outcomes = runs.map { $0.wait(timeout: 300) }
            for outcome in outcomes {
                // Each either did the work (or found it done) or stopped at once with the message.
                let stopped = outcome.exited(1) && outcome.stderr.contains("another index run is writing to \(database.path)")
                #expect(outcome.exited(0) || stopped, "\(outcome)")
            }
            #expect(outcomes.contains { $0.exited(0) })
            #expect(try ReliabilityFixtures.integrity(database) == "ok")
            let rows = try ReliabilityFixtures.images(database)
            #expect(rows.count == 12 && rows.values.allSatisfy { $0.errorStage == nil })
        }
    }
}
