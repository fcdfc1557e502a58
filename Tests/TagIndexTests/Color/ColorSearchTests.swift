import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Searches by color on both backends (``BackendIndex``). SQLite-only: `dominantColors(forPath:)`
/// (not in `PostgresIndex` yet) and the writer replacing colors.
@Suite struct ColorSearchTests {
    static let blue = IndexedColor(red: 1, green: 42, blue: 207)

    /// FixtureIndex plus images with stored colors.
    func library() throws -> FixtureIndex {
        let fixture = try FixtureIndex()
        func entry(_ path: String, _ colors: [IndexedColor], _ labels: [(String, Double)]) -> IndexEntry {
            .classified(ImageClassification(
                path: path, size: 1, modificationTime: FixtureIndex.epoch, contentHash: path, width: 10, height: 10,
                model: FixtureIndex.model, observations: labels.map { LabelConfidence(identifier: $0.0, confidence: $0.1) },
                dominantColors: colors))
        }
        try fixture.index.write(batch: [
            entry("/colors/mostly-blue.jpg", [IndexedColor(red: 10, green: 40, blue: 200, weight: 0.8), IndexedColor(red: 220, green: 20, blue: 20, weight: 0.2)], [("beach", 0.9)]),
            entry("/colors/mostly-red.jpg", [IndexedColor(red: 220, green: 20, blue: 20, weight: 0.7), IndexedColor(red: 10, green: 40, blue: 200, weight: 0.3)], [("beach", 0.9)]),
            entry("/colors/all-green.jpg", [IndexedColor(red: 20, green: 200, blue: 30, weight: 1)], [("grass", 0.9)]),
            entry("/colors/blue-dog.jpg", [IndexedColor(red: 0, green: 45, blue: 210, weight: 0.5), IndexedColor(red: 250, green: 250, blue: 250, weight: 0.5)], [("poodle", 0.9)]),
        ])
        return fixture
    }

    @Test(arguments: Backend.allCases) func bluestImageFirstAndUnrelatedColorsLeftOut(backend: Backend) async throws {
        let fixture = try await BackendIndex.make(backend, copying: try library())
        let page = try await fixture.search(color: Self.blue)
        #expect(page.hits.map(\.path) == ["/colors/mostly-blue.jpg", "/colors/blue-dog.jpg", "/colors/mostly-red.jpg"])
        #expect(page.totalCount == 3)
        #expect(page.hits[0].score > 0.65 && page.hits[0].score <= 0.8)
        #expect(page.hits[2].score > 0.2 && page.hits[2].score <= 0.3)
        let red = try await fixture.search(color: IndexedColor(hex: "DC1414")!)
        #expect(red.hits.first?.path == "/colors/mostly-red.jpg")
        #expect(abs(red.hits[0].score - 0.7) < 0.01)
    }

    @Test(arguments: Backend.allCases) func combinesWithLabelQueries(backend: Backend) async throws {
        let fixture = try await BackendIndex.make(backend, copying: try library())
        let dogs = try await fixture.search(color: Self.blue, query: Query(parsing: "dog"))
        #expect(dogs.hits.map(\.path) == ["/colors/blue-dog.jpg"])
        let beachNotRed = try await fixture.search(color: IndexedColor(hex: "#dc1414")!, query: Query(parsing: "beach under:/colors"))
        #expect(beachNotRed.hits.map(\.path) == ["/colors/mostly-red.jpg", "/colors/mostly-blue.jpg"])
        #expect(try await fixture.search(color: Self.blue, query: Query(parsing: "grass")).totalCount == 0)
    }

    /// Pages of a color search: totals, page counts and the same order page after page.
    @Test(arguments: Backend.allCases) func pagesOfAColorSearch(backend: Backend) async throws {
        let fixture = try await BackendIndex.make(backend, copying: try library())
        let all = try await fixture.search(color: Self.blue)
        var query = Query()
        query.limit = 2
        query.page = 2
        let second = try await fixture.search(color: Self.blue, query: query)
        #expect(second.totalCount == 3 && second.pageCount == 2)
        #expect(second.hits == Array(all.hits[2...]))
        query.page = 3
        #expect(try await fixture.search(color: Self.blue, query: query).hits.isEmpty)
        query.page = 0
        await #expect(throws: TagIndexError.self) { try await fixture.search(color: Self.blue, query: query) }
        // Failed files and files without colors are never color matches.
        #expect(try await fixture.search(color: Self.blue, query: Query(parsing: "failed")).totalCount == 0)
        #expect(try await fixture.search(color: Self.blue, query: Query(parsing: "under:/lib")).totalCount == 0)
    }

    /// SQLite only: `dominantColors(forPath:)` and a failure replacing the stored colors.
    @Test func storedCompactlyAndParsed() throws {
        let fixture = try library()
        let stored = try fixture.index.dominantColors(forPath: "/colors/mostly-blue.jpg")
        #expect(stored.map(\.red) == [10, 220])
        #expect(abs(stored[0].weight - 0.8) < 0.5 / 255 + 1e-9)
        #expect(try fixture.index.dominantColors(forPath: "/lib/a/golden1.jpg").isEmpty)
        #expect(IndexedColor.encode([Self.blue])?.count == 4)
        #expect(IndexedColor(hex: "012ACF") == Self.blue)
        #expect(IndexedColor(hex: "12ACF") == nil && IndexedColor(hex: "GG0000") == nil && IndexedColor(hex: "+12ACF") == nil)
        // A failure replaces the stored colors.
        try fixture.index.write(batch: [.failed(ImageFailure(
            path: "/colors/mostly-blue.jpg", size: 1, modificationTime: FixtureIndex.epoch, contentHash: nil,
            model: FixtureIndex.model, stage: "decode", reason: "truncated"))])
        #expect(try fixture.index.dominantColors(forPath: "/colors/mostly-blue.jpg").isEmpty)
    }
}
