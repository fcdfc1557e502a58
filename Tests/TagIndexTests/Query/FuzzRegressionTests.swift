import Foundation
import Testing
@testable import TagIndex

/// Inputs found by fuzzing the search language (Scripts/fuzz query, Sources/fuzz-query), kept so
/// they never come back. Each ran into a trap before its fix.
@Suite struct QueryFuzzRegressionTests {
    let fixture: FixtureIndex
    init() throws { fixture = try FixtureIndex() }

    /// The input exactly as the fuzzer wrote it: option byte, then the query text.
    static let farAwayDayInput = Data(base64Encoded: "CmFmdGVyOjJlMjMtMDEtMDK0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tGZhaWxlZLS0tLRpbndpZHQwMjQtMDEtMDFUMDA6MDA6MDBaZWlnaHQ6MnJlMA==")!

    @Test func daysFoundationReadsAsHundredsOfThousandsOfYearsAwayAreSyntaxErrors() throws {
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
                #expect(error.message == "expected a date like 2023-01-31 or 2023-01-31T12:00:00Z after '\(key):'", "\(value)")
            }
        }
        // The ends of the accepted range still work.
        #expect(try fixture.paths("after:0001-01-01 dog").count == 4)
        #expect(try fixture.paths("before:9999-12-31 dog").count == 4)
    }

    @Test func searchesWithDatesFarOutsideTheStoredRangeAnswer() throws {
        // Code (or the command line's --after/--before) can still build such a query.
        var query = Query(.word("dog"))
        query.filters.modifiedAfter = Date(timeIntervalSince1970: -1e14)
        #expect(try fixture.paths(query).count == 4)
        query.filters.modifiedAfter = Date(timeIntervalSince1970: 1e14)
        #expect(try fixture.paths(query).isEmpty)
        query.filters.modifiedAfter = nil
        query.filters.modifiedBefore = Date(timeIntervalSince1970: -1e300)
        #expect(try fixture.paths(query).isEmpty)
    }
}
