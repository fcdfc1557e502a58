@testable import classify_tool
@testable import ClassifyIndexing
import TagIndex
import Testing

/// The tool's pure output helpers, without running the executable.
@Suite struct OutputTests {
    private func progress(scanned: Int, candidates: Int, done: Int, failed: Int = 0, complete: Bool, seconds: Int64) -> LibraryIndexer.Progress {
        var progress = LibraryIndexer.Progress()
        progress.scanned = scanned
        progress.candidates = candidates
        progress.done = done
        progress.failed = failed
        progress.scanComplete = complete
        progress.elapsed = .seconds(seconds)
        return progress
    }

    @Test func statusLineEstimatesTheTotalFromTheFileCount() {
        // Half the walked files needed work, 2,000 files in all: about 1,000 to do.
        let line = ProgressDisplay.line(progress(scanned: 512, candidates: 256, done: 100, failed: 2, complete: false, seconds: 10), filesInFolders: 2000)
        #expect(line == "100/~1000  10.0 img/s  ETA 1:30  2 failed")
    }

    @Test func statusLineWithoutACountSaysItIsScanning() {
        let line = ProgressDisplay.line(progress(scanned: 512, candidates: 300, done: 100, complete: false, seconds: 10), filesInFolders: nil)
        #expect(line == "100/300+ (scanning, 512 files seen)  10.0 img/s")
    }

    @Test func statusLineOnceTheWalkIsComplete() {
        let line = ProgressDisplay.line(progress(scanned: 2000, candidates: 1200, done: 600, complete: true, seconds: 60), filesInFolders: 2000)
        #expect(line == "600/1200  10.0 img/s  ETA 1:00")
        let early = ProgressDisplay.line(progress(scanned: 2000, candidates: 1200, done: 5, complete: true, seconds: 1), filesInFolders: 2000)
        #expect(early == "5/1200  5.0 img/s", "no ETA from the first few files")
    }

    @Test func durationsReadAsClockTimes() {
        #expect(ProgressDisplay.duration(59.6) == "1:00")
        #expect(ProgressDisplay.duration(3725) == "1:02:05")
    }

    @Test func csvFieldsAreQuotedOnlyWhenNeeded() {
        #expect(ResultRenderer.csvField("plain.jpg") == "plain.jpg")
        #expect(ResultRenderer.csvField("a, b.jpg") == "\"a, b.jpg\"")
        #expect(ResultRenderer.csvField("say \"hi\".jpg") == "\"say \"\"hi\"\".jpg\"")
        #expect(ResultRenderer.csvField("two\nlines") == "\"two\nlines\"")
    }

    @Test func sizesAndDaysParse() throws {
        #expect(try SearchCommand.bytes("500KB", option: "--min-size") == 512_000)
        #expect(try SearchCommand.bytes("2 mb", option: "--min-size") == 2 << 20)
        #expect(try SearchCommand.bytes("1234", option: "--min-size") == 1234)
        #expect(try SearchCommand.bytes("2M", option: "--min-size") == 2 << 20)
        #expect(try SearchCommand.day("2024-01-31", option: "--after") == "2024-01-31")
        #expect(try SearchCommand.day("2024-01", option: "--after") == "2024-01-01")
        #expect(throws: (any Error).self) { try SearchCommand.bytes("big", option: "--min-size") }
        #expect(throws: (any Error).self) { try SearchCommand.day("2024-13-45", option: "--after") }
    }
}
