import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C during `index`: the run stops taking files, writes what finished, prints a partial
/// summary and exits 130; the next run does only the rest.
@Suite struct InterruptTests {
    /// Images indexed so far, read with `stats --json` while the indexer writes.
    private func indexedCount(_ database: URL) throws -> Int {
        guard FileManager.default.fileExists(atPath: database.path) else { return 0 }
        let result = try Tool.run(["stats", "--json", "--db", database.path])
        guard result.status == 0,
              let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return 0 }
        return object["images"] as? Int ?? 0
    }

    /// Numbers from a summary line: "interrupted after 1.2 s: 8 new, ..., 0 failed" -> ["new": 8, ...].
    private func counts(_ line: String) -> [String: Int] {
        guard let colon = line.range(of: ": ") else { return [:] }
        var counts: [String: Int] = [:]
        for part in line[colon.upperBound...].split(separator: ", ") {
            let words = part.split(separator: " ")
            if words.count == 2, let number = Int(words[0]) { counts[String(words[1])] = number }
        }
        return counts
    }

    @Test func sigintCommitsWhatFinishedAndTheNextRunResumes() throws {
        let total = 80
        let fixture = try Fixture.manyPhotos(total)
        defer { fixture.remove() }
        let arguments = ["index", fixture.photos.path, "--db", fixture.database.path, "--jobs", "1"]

        // The run presses Ctrl-C on itself right after its first batch committed (at a chosen
        // point, not a moment on the clock, so the signal lands mid-run on any machine). That batch
        // holds 2 files, or just 1 on a machine slow enough that a second passed before the second
        // file finished (batches are also committed every second).
        let process = Process()
        process.executableURL = Tool.executable
        process.arguments = arguments + ["--batch-size", "2"]
        process.environment = Tool.environment(dataHome: fixture.dataHome, extra: ["CLASSIFY_CRASH_AT": "commit:1:INT"])
        let first = try Tool.capture(process) { _ in }
        let doneBeforeSignal = 1
        #expect(first.status == 130)
        let partial = try #require(first.lines.first)
        #expect(partial.hasPrefix("interrupted after "))
        #expect(first.lines.last == "run the same command again to continue")
        #expect(first.stderr.contains("interrupted: finishing the files in flight"))
        let done = counts(partial)["new"] ?? -1
        #expect(done >= doneBeforeSignal)
        #expect(done < total, "the run stopped early")
        #expect(counts(partial)["failed"] == 0)
        #expect(try indexedCount(fixture.database) == done, "everything the summary counts was committed")

        let second = try Tool.run(arguments, environment: Tool.environment(dataHome: fixture.dataHome))
        #expect(second.status == 0)
        let final = try #require(second.lines.first)
        #expect(final.hasPrefix("done in "))
        #expect(counts(final)["new"] == total - done, "only the remaining files are classified")
        #expect(counts(final)["unchanged"] == done, "what the first run did is not redone")
        #expect(counts(final)["removed"] == 0)
        #expect(try indexedCount(fixture.database) == total)
    }
}
