import Foundation
import Testing
@testable import TagIndex

/// Inputs found by fuzzing the search language (Scripts/fuzz query, Sources/fuzz-query), kept so
/// they never come back. Each ran into a trap before its fix. Searches run on both backends.
@Suite struct QueryFuzzRegressionTests {
    /// The input exactly as the fuzzer wrote it: option byte, then the query text (0xB4 bytes are
    /// not UTF-8 and become U+FFFD).
    static let farAwayDayInput: [UInt8] = [0x0A] + Array("after:2e23-01-02".utf8) + Array(repeating: 0xB4, count: 26)
        + Array("failed".utf8) + Array(repeating: 0xB4, count: 4) + Array("inwidt024-01-01T00:00:00Zeight:2re0".utf8)

    @Test(arguments: Backend.allCases) func daysFoundationReadsAsHundredsOfThousandsOfYearsAwayAreSyntaxErrors(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        // Foundation read "2e23-01-02" as a day about 820,000 years ago; turning it into stored
        // microseconds trapped (below Int64.min).
        let text = String(decoding: Self.farAwayDayInput.dropFirst(), as: UTF8.self)
        #expect(throws: QuerySyntaxError.self) { _ = try Query(parsing: text) }
        for value in ["after:2e23-01-02", "before:2e23-01-02", "after:99999-01-01", "before:-2000-01-01"] {
            let key = value.hasPrefix("after") ? "after" : "before"
            do {
                _ = try Query(parsing: value)
                Issue.record("\(value) parsed")
            } catch {
                #expect(error.message == "expected a date like 2023, 2023-01 or 2023-01-31 (or 2023-01-31T12:00), or last-month, after '\(key):'", "\(value)")
            }
        }
        // The ends of the accepted range still work.
        #expect(try await fixture.paths("after:0001-01-01 dog").count == 4)
        #expect(try await fixture.paths("before:9999-12-31 dog").count == 4)
    }

    @Test(arguments: Backend.allCases) func searchesWithDatesFarOutsideTheStoredRangeAnswer(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        // Code (or the command line's --after/--before) can still build such a query.
        var query = Query(.word("dog"))
        query.filters.modifiedAfter = Date(timeIntervalSince1970: -1e14)
        #expect(try await fixture.paths(query).count == 4)
        query.filters.modifiedAfter = Date(timeIntervalSince1970: 1e14)
        #expect(try await fixture.paths(query).isEmpty)
        query.filters.modifiedAfter = nil
        query.filters.modifiedBefore = Date(timeIntervalSince1970: -1e300)
        #expect(try await fixture.paths(query).isEmpty)
        query.filters.modifiedBefore = Date(timeIntervalSince1970: .infinity)
        #expect(try await fixture.paths(query).count == 4)
    }
}

/// Nesting that SQLite's statement parser cannot take (its stack holds about 100 entries): found
/// by the fuzzer as 52 nested negations sorted by path; such queries leaked "SQLite error 1:
/// parser stack overflow - while executing `SELECT ...`". They are now a clear error, and the
/// nesting that fits still answers. PostgreSQL has no such limit at these depths: there the same
/// queries answer, as they do sorted by confidence.
@Suite struct DeepQueryTests {
    /// The input exactly as the fuzzer wrote it: option byte 0x11 (sort by path), then the query.
    static let fuzzerInput: [UInt8] = [0x11] + Array(repeating: UInt8(ascii: "-"), count: 51) + Array("puppy-".utf8)

    enum Order { case confidence, path, date }

    static func outcome(_ text: String, sort: Order, _ fixture: BackendIndex) async -> String {
        var query: Query
        do {
            query = try Query(parsing: text)
        } catch {
            return "syntax: \(error.message)"
        }
        switch sort {
        case .confidence: query.sort = .confidence
        case .path: query.sort = .path
        case .date: query.sort = .date
        }
        do {
            let page = try await fixture.search(query)
            return "\(page.totalCount) results"
        } catch let error as TagIndexError {
            return "\(error)"
        } catch {
            return "unexpected: \(error)"
        }
    }

    static let tooComplex = "this query is too complex for the index (parser stack overflow); use fewer nested parentheses and negations, or sort by confidence without filters"

    /// What a query nested past SQLite's parser stack gives on `backend`: the error on SQLite, on
    /// PostgreSQL the answer it gives sorted by confidence.
    static func tooDeep(_ text: String, _ backend: Backend, _ fixture: BackendIndex) async -> String {
        backend == .sqlite ? tooComplex : await outcome(text, sort: .confidence, fixture)
    }

    @Test(arguments: Backend.allCases) func theFuzzerInputIsAClearError(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let text = String(decoding: Self.fuzzerInput.dropFirst(), as: UTF8.self)
        let fuzzed = await Self.outcome(text, sort: .path, fixture)
        let deep = await Self.tooDeep(text, backend, fixture)
        #expect(fuzzed.hasPrefix("syntax:") || fuzzed == deep)
        let negations = String(repeating: "NOT ", count: 52) + "dog"
        #expect(await Self.outcome(negations, sort: .path, fixture) == Self.tooDeep(negations, backend, fixture))
        #expect(await Self.outcome(negations, sort: .confidence, fixture) == "4 results")
    }

    @Test(arguments: Backend.allCases) func nestingThatFitsAnswersAndDeeperNestingExplains(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let alternating = { (depth: Int) in
            String(repeating: "(cat OR (dog ", count: depth) + "beach" + String(repeating: "))", count: depth)
        }
        let filtered = "under:/lib " + String(repeating: "NOT ", count: 60) + "dog"
        for sort in [Order.path, .date] {
            #expect(await Self.outcome(alternating(3), sort: sort, fixture).hasSuffix("results"), "\(sort)")
            #expect(await Self.outcome(alternating(8), sort: sort, fixture) == Self.tooDeep(alternating(8), backend, fixture), "\(sort)")
            #expect(await Self.outcome(String(repeating: "-", count: 30) + "dog", sort: sort, fixture) == "4 results", "\(sort)")
            #expect(await Self.outcome(filtered, sort: sort, fixture) == Self.tooDeep(filtered, backend, fixture), "\(sort)")
        }
        #expect(await Self.outcome(alternating(8), sort: .confidence, fixture).hasSuffix("results"))
    }
}

/// The query fuzzer keeps one index for its whole run, and its first input (0x1D: options only, an
/// empty query) ended in a LeakSanitizer report: cached statements kept the last blob they had
/// bound (postings, curves), and LeakSanitizer cannot follow the references Swift's `Data` keeps
/// inside enums. Blob-binding statements are now prepared per batch. This suite keeps such an
/// index alive until the process exits, the way the fuzzer does, so `Scripts/sanitize address`
/// checks it at exit; in a normal run it checks that the index answers.
@Suite struct LongLivedIndexTests {
    static let model = ModelStamp(name: "long-lived", version: "1")

    /// Written once with every kind of blob the index stores: curves, postings, packed labels,
    /// feature prints and dominant colors.
    static let index: SQLiteIndex = {
        let index = try! SQLiteIndex.inMemory()
        let curve = [CurvePoint(threshold: 0.2, precision: 0.6, recall: 0.9), CurvePoint(threshold: 0.7, precision: 0.95, recall: 0.5)]
        try! index.replaceTaxonomy([
            LabelDefinition(identifier: "animal", displayName: "Animal", curve: curve),
            LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"], curve: curve),
        ], model: model)
        var print = [Float](repeating: 0, count: FeaturePrint.dimension)
        print[0] = 1
        try! index.write(batch: [.classified(ImageClassification(
            path: "/lib/dog.jpg", size: 1000, modificationTime: Date(timeIntervalSince1970: 1_700_000_000), contentHash: "h",
            width: 100, height: 80, model: model, observations: [LabelConfidence(identifier: "dog", confidence: 0.9)],
            featurePrint: print, dominantColors: [IndexedColor(red: 200, green: 120, blue: 40)]))])
        return index
    }()

    @Test func theFuzzersFirstInputAnswers() throws {
        #expect(try Self.index.search(Query()).hits.map(\.path) == ["/lib/dog.jpg"])
        #expect(try Self.index.search("dog").hits.map(\.path) == ["/lib/dog.jpg"])
        #expect(try Self.index.similar(toPath: "/lib/dog.jpg").hits.isEmpty)   // the only image is the query itself
    }
}
