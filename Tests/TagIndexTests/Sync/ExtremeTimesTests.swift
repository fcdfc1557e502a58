import Foundation
import Testing
@testable import TagIndex

/// Modification times far outside ±292,000 years are possible on file systems with 64-bit
/// timestamps (tmpfs, for one: `touch -d @99999999999999`). Storing them used to trap.
@Suite struct ExtremeTimesTests {
    @Test func timestampsSaturateInsteadOfTrapping() {
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: 1.5)) == 1_500_000)
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: 99_999_999_999_999)) == .max)
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: -99_999_999_999_999)) == .min)
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: .infinity)) == .max)
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: -.infinity)) == .min)
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: .nan)) == 0)
        // The largest times that fit are kept exactly.
        #expect(Timestamps.microseconds(Date(timeIntervalSince1970: 9_000_000_000_000)) == 9_000_000_000_000_000_000)
    }

    @Test func filesWithAbsurdModificationTimesAreIndexedAndThenUnchanged() throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        let model = ModelStamp(name: "lite0", version: "1")
        try index.replaceTaxonomy([LabelDefinition(identifier: "dog", displayName: "Dog")], model: model)
        let files = [
            FileFacts(path: "/photos/future.jpg", size: 10, modificationTime: Date(timeIntervalSince1970: 99_999_999_999_999)),
            FileFacts(path: "/photos/past.jpg", size: 20, modificationTime: Date(timeIntervalSince1970: -99_999_999_999_999)),
        ]
        let first = try index.beginRun(roots: ["/photos"], model: model)
        #expect(try first.plan(files).map(\.action) == [.needsClassification, .needsClassification])
        for file in files { #expect(try first.resolve(file, contentHash: file.path) == .classify) }
        try first.write(batch: files.map { file in
            .classified(ImageClassification(
                path: file.path, size: file.size, modificationTime: file.modificationTime, contentHash: file.path,
                width: 1, height: 1, model: model, observations: [LabelConfidence(identifier: "dog", confidence: 0.9)]))
        })
        _ = try first.finish()
        let second = try index.beginRun(roots: ["/photos"], model: model)
        #expect(try second.plan(files).map(\.action) == [.unchanged, .unchanged])
        #expect(try second.finish() == RunSummary(scanned: 2, unchanged: 2))
        #expect(try index.search("dog after:2020-01-01").hits.map(\.path) == ["/photos/future.jpg"])
    }

    /// Saturated times, written in SQLite, filter and sort by date on both backends.
    @Test(arguments: Backend.allCases) func absurdTimesFilterAndSortOnEveryBackend(backend: Backend) async throws {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        let model = ModelStamp(name: "lite0", version: "1")
        try index.replaceTaxonomy([LabelDefinition(identifier: "dog", displayName: "Dog")], model: model)
        let files: [(String, Double, Double)] = [
            ("/photos/future.jpg", 99_999_999_999_999, 0.7), ("/photos/now.jpg", 1_700_000_000, 0.8),
            ("/photos/past.jpg", -99_999_999_999_999, 0.9),
        ]
        try index.write(batch: files.map { path, seconds, confidence in
            .classified(ImageClassification(
                path: path, size: 10, modificationTime: Date(timeIntervalSince1970: seconds), contentHash: path,
                width: 1, height: 1, model: model, observations: [LabelConfidence(identifier: "dog", confidence: confidence)]))
        })
        let read = try await BackendIndex.make(backend, copying: index, in: directory)
        var query = try Query(parsing: "dog")
        query.sort = .date
        #expect(try await read.paths(query) == ["future.jpg", "now.jpg", "past.jpg"])
        #expect(try await read.paths("dog after:2020-01-01") == ["now.jpg", "future.jpg"])
        #expect(try await read.paths("dog before:1970-01-01") == ["past.jpg"])
        #expect(try await read.image(atPath: "/photos/future.jpg")?.modificationTime == Timestamps.date(.max))
        #expect(try await read.image(atPath: "/photos/past.jpg")?.modificationTime == Timestamps.date(.min))
    }
}
