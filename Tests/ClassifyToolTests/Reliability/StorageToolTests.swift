import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// A full disk, a read-only file system and a damaged database file, through the tool: a clear
    /// error (exit status 1) and the existing index untouched.
    @Suite struct Storage {
        /// True when this process can mount a small tmpfs (root with CAP_SYS_ADMIN).
        static let canMount: Bool = (try? ReliabilityMount(kilobytes: 64)) != nil

        /// An index on a small tmpfs holding `photos` indexed photos (p0.jpg...), and the folder
        /// they came from: the starting point of the full-disk and read-only tests.
        static func indexOnSmallDisk(_ label: String, photos: Int) throws -> (scratch: ReliabilityScratch, folder: URL, disk: ReliabilityMount, database: URL) {
            let scratch = try ReliabilityScratch(label)
            let folder = try scratch.folder("photos")
            let disk = try ReliabilityMount(kilobytes: 8 * 1024)
            let database = disk.url.appending(path: "index.sqlite")
            try ReliabilityFixtures.templateDatabase.write(to: database)
            for number in 0..<photos { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            let first = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            try #require(first.exited(0), "\(first)")
            return (scratch, folder, disk, database)
        }

        /// Everything a search can see: path -> labels.
        static func contents(_ database: URL) throws -> [String: [String]] {
            try ReliabilityFixtures.labels(database)
        }

        @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"), .timeLimit(.minutes(20)))
        func aFullDiskStopsTheRunWithAClearErrorAndLosesNothing() throws {
            let (scratch, folder, disk, database) = try Self.indexOnSmallDisk("disk-full", photos: 3)
            let before = try ReliabilityFixtures.images(database)
            let beforeLabels = try Self.contents(database)

            try disk.fill(leaving: 60)
            for number in 3..<12 { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            let full = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            #expect(full.exited(1), "\(full)")
            #expect(full.stderr.contains("cannot use the index at \(database.path): the disk is full (database or disk is full); nothing written before was lost: free some space and run the command again"), "\(full.stderr)")
            // Searching still works on the full disk, and finds what was there.
            let search = try ReliabilityProcess.run(["search", "--db", database.path], scratch: scratch.url)
            #expect(search.exited(0), "\(search)")
            #expect(Set(search.lines).isSuperset(of: before.keys))

            #expect(try ReliabilityFixtures.integrity(database) == "ok")
            let during = try ReliabilityFixtures.images(database)
            let duringLabels = try Self.contents(database)
            for (path, row) in before {
                #expect(during[path] == row)
                #expect(duringLabels[path] == beforeLabels[path])
            }
            // Anything written before the disk filled up is whole.
            for path in during.keys where before[path] == nil { #expect(duringLabels[path]?.isEmpty == false) }

            disk.drain()
            let resumed = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            #expect(resumed.exited(0), "\(resumed)")
            #expect(resumed.lines.first?.contains(" \(12 - during.count) new, 0 updated, 0 moved, 0 copied, 0 touched, \(during.count) unchanged,") == true, "\(resumed)")
            #expect(try ReliabilityFixtures.images(database).count == 12)
        }

        @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"), .timeLimit(.minutes(20)))
        func aReadOnlyLocationIsAClearErrorAndTheIndexIsUntouched() throws {
            let (scratch, folder, disk, database) = try Self.indexOnSmallDisk("read-only", photos: 2)
            let bytes = try Data(contentsOf: database)

            try disk.remount(readOnly: true)
            try ReliabilityFixtures.photoCopy(2, to: folder.appending(path: "p2.jpg"))
            let expected = "cannot use the index at \(database.path): it cannot be opened for writing (unable to open database file); check that its folder exists and is writable, not on a read-only file system"
            let index = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            #expect(index.exited(1), "\(index)")
            #expect(index.stderr.contains(expected), "\(index.stderr)")
            // The tool always opens the index for writing, so searching a read-only copy gives the
            // same clear error (not a crash).
            let search = try ReliabilityProcess.run(["search", "--db", database.path], scratch: scratch.url)
            #expect(search.exited(1), "\(search)")
            #expect(search.stderr.contains(expected), "\(search.stderr)")
            #expect(try Data(contentsOf: database) == bytes)

            try disk.remount(readOnly: false)
            let again = try ReliabilityProcess.run(["index", folder.path, "--db", database.path], scratch: scratch.url)
            #expect(again.exited(0) && again.lines.first?.contains(" 1 new, 0 updated, 0 moved, 0 copied, 0 touched, 2 unchanged,") == true, "\(again)")
        }

        /// tmpfs keeps 64-bit modification times; ext4 would clamp them to the year 2446.
        @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"), .timeLimit(.minutes(20)))
        func filesWithModificationTimesMillionsOfYearsAwayAreIndexed() throws {
            let scratch = try ReliabilityScratch("far-times")
            let disk = try ReliabilityMount(kilobytes: 1024)
            let future = disk.url.appending(path: "future.jpg"), past = disk.url.appending(path: "past.jpg")
            try ReliabilityFixtures.photoCopy(0, to: future)
            try ReliabilityFixtures.photoCopy(3, to: past)
            for (url, seconds) in [(future, 99_999_999_999_999), (past, -99_999_999_999_999)] {
                var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
                var info = stat()
                #expect(stat(url.path, &info) == 0 && info.st_mtim.tv_sec == seconds)
            }
            let database = try ReliabilityFixtures.freshDatabase(in: scratch)
            // Storing these times trapped (Double to Int64 microseconds) and killed the run.
            let first = try ReliabilityProcess.run(["index", disk.url.path, "--db", database.path], scratch: scratch.url)
            #expect(first.exited(0), "\(first)")
            #expect(first.lines.first?.contains(" 2 new,") == true, "\(first)")
            let again = try ReliabilityProcess.run(["index", disk.url.path, "--db", database.path], scratch: scratch.url)
            #expect(again.exited(0) && again.lines.first?.contains(" 0 new, 0 updated, 0 moved, 0 copied, 0 touched, 2 unchanged,") == true, "\(again)")
            let newest = try ReliabilityProcess.run(["search", "--sort", "date", "--after", "2020-01-01", "--db", database.path], scratch: scratch.url)
            #expect(newest.exited(0) && newest.lines == [future.path], "\(newest)")
        }

        /// A finished run closes the index, so SQLite folds its WAL into the file: the file alone is
        /// the whole index (copying it is a backup). A task that outlived the run once kept the
        /// database open at exit on some machines, leaving the rows in `-wal` beside a bare file.
        @Test(.timeLimit(.minutes(20)))
        func aFinishedRunLeavesTheWholeIndexInItsFile() throws {
            let scratch = try ReliabilityScratch("closed-index")
            let folder = try scratch.folder("photos")
            for number in 0..<3 { try ReliabilityFixtures.photoCopy(number, to: folder.appending(path: "p\(number).jpg")) }
            for round in 0..<3 {
                let database = scratch.url.appending(path: "index-\(round).sqlite")
                let outcome = try ReliabilityProcess.run(["index", folder.path, "--db", database.path, "--no-faces"], scratch: scratch.url)
                #expect(outcome.exited(0), "\(outcome)")
                for leftover in ["-wal", "-shm"] {
                    #expect(!FileManager.default.fileExists(atPath: database.path + leftover), "round \(round): \(leftover) left beside the index")
                }
                let copy = scratch.url.appending(path: "copy-\(round).sqlite")
                try Data(contentsOf: database).write(to: copy)
                #expect(try ReliabilityFixtures.images(copy).count == 3)
            }
        }

        @Test(.timeLimit(.minutes(20)))
        func aDamagedOrForeignDatabaseFileIsAClearErrorAndLeftAsItWas() throws {
            let scratch = try ReliabilityScratch("damaged-db")
            let folder = try scratch.folder("photos")
            try ReliabilityFixtures.photoCopy(0, to: folder.appending(path: "p0.jpg"))
            let whole = ReliabilityFixtures.templateDatabase
            let damaged = scratch.url.appending(path: "damaged.sqlite")
            try whole.prefix(whole.count / 3).write(to: damaged)
            let foreign = scratch.url.appending(path: "notes.sqlite")
            try Data("shopping list: milk, eggs\n".utf8).write(to: foreign)

            for command in [["search", "dog"], ["stats"], ["index", folder.path]] {
                let outcome = try ReliabilityProcess.run(command + ["--db", damaged.path], scratch: scratch.url)
                #expect(outcome.exited(1), "\(command[0]): \(outcome)")
                #expect(outcome.stderr.contains("cannot use the index at \(damaged.path): the file is damaged (database disk image is malformed); move it away (or restore a backup) and index again"), "\(command[0]): \(outcome.stderr)")
                let other = try ReliabilityProcess.run(command + ["--db", foreign.path], scratch: scratch.url)
                #expect(other.exited(1), "\(command[0]): \(other)")
                #expect(other.stderr.contains("\(foreign.path) is not a TagIndex database: file is not a database"), "\(command[0]): \(other.stderr)")
            }
            #expect(try Data(contentsOf: damaged) == whole.prefix(whole.count / 3))
            #expect(try Data(contentsOf: foreign) == Data("shopping list: milk, eggs\n".utf8))
        }
    }
}
