import Foundation
import TagIndex

/// The searches of the index benchmark, drawn once from the synthetic index's label counts so
/// every backend answers the same queries in the same order: labels are picked in proportion to
/// how many images carry them (popular labels, parents included, are searched most, as people
/// do); booleans combine three such labels in four shapes; facets ask for 20 labels over the
/// result sets closest to the configured size.
///
/// ```swift
/// let workload = try SearchWorkload(counts: counts, configuration: configuration)
/// let latencies = try await workload.run { try index.search($0) }
/// ```
struct SearchWorkload: Sendable {
    var warmUp: [Query] = []
    var singleLabel: [Query] = []
    var calibratedSingleLabel: [Query] = []
    var booleanSearch: [Query] = []
    var calibratedBooleanSearch: [Query] = []
    var facets: [Query] = []
    /// The text of every boolean search, in order (to name the slowest).
    var booleanTexts: [String] = []
    /// The first of each shape, for the report.
    var booleanExamples: [String] { Array(booleanTexts.prefix(4)) }
    /// Distinct labels among `facets` (asked twice each).
    var facetLabelCount = 0
    let labelCount: Int

    init(counts: [(identifier: String, count: Int)], configuration: TagIndexBenchmark.Configuration) throws {
        guard !counts.isEmpty else { throw TagIndexError.invalidInput("the benchmark's index carries no labels") }
        labelCount = counts.count
        var random = SyntheticLibrary.Random(state: configuration.seed ^ 0xABCD)
        let total = counts.reduce(0) { $0 + $1.count }
        func popularLabel() -> String {
            var target = Int(random.unit() * Double(total))
            for (identifier, count) in counts {
                target -= count
                if target < 0 { return identifier }
            }
            return counts[counts.count - 1].identifier
        }
        // Warm the page cache and the taxonomy like a running tool would be.
        warmUp = (0..<20).map { _ in Query(.word(popularLabel())) }
        singleLabel = (0..<configuration.singleLabelQueries).map { _ in Query(.word(popularLabel())) }
        // With the calibrated high-recall filter, which `classify-tool search` and the gallery apply
        // by default (each label of the term's subtree with its own threshold).
        calibratedSingleLabel = (0..<configuration.singleLabelQueries).map { _ in
            var query = Query(.word(popularLabel()))
            query.calibration = .highRecall
            return query
        }
        for number in 0..<configuration.booleanQueries {
            let (a, b, c) = (popularLabel(), popularLabel(), popularLabel())
            let text =
                switch number % 4 {
                case 0: "\(a) \(b) -\(c)"
                case 1: "(\(a) OR \(b)) \(c)"
                case 2: "\(a) AND \(b) AND \(c)"
                default: "\(a) OR \(b) OR \(c)"
                }
            booleanTexts.append(text)
            booleanSearch.append(try Query(parsing: text))
            var calibrated = try Query(parsing: text)
            calibrated.calibration = .highRecall
            calibratedBooleanSearch.append(calibrated)
        }
        let facetLabels = counts.sorted {
            abs($0.count - configuration.facetResultSize) < abs($1.count - configuration.facetResultSize)
        }.prefix(max(1, configuration.facetQueries / 2))
        facetLabelCount = facetLabels.count
        for _ in 0..<2 {
            for label in facetLabels where facets.count < configuration.facetQueries {
                var query = Query(.word(label.identifier))
                query.facetCount = 20
                facets.append(query)
            }
        }
    }

    /// Times every search with `search` (one at a time, first page).
    func run(progress: (@Sendable (String) -> Void)? = nil, _ search: (Query) async throws -> SearchPage) async throws -> SearchLatencies {
        func measure(_ queries: [Query]) async throws -> (milliseconds: [Double], pages: [SearchPage]) {
            var milliseconds: [Double] = [], pages: [SearchPage] = []
            for query in queries {
                let start = DispatchTime.now().uptimeNanoseconds
                pages.append(try await search(query))
                milliseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            return (milliseconds, pages)
        }
        _ = try await measure(warmUp)
        let single = LatencySummary(try await measure(singleLabel).milliseconds)
        progress?("single-label p95 \(single.p95Text)")
        let calibrated = LatencySummary(try await measure(calibratedSingleLabel).milliseconds)
        progress?("single-label high-recall p95 \(calibrated.p95Text)")
        let booleanTimes = try await measure(booleanSearch).milliseconds
        let boolean = LatencySummary(booleanTimes)
        let calibratedBooleanTimes = try await measure(calibratedBooleanSearch).milliseconds
        let calibratedBoolean = LatencySummary(calibratedBooleanTimes)
        progress?("boolean p95 \(boolean.p95Text), high-recall \(calibratedBoolean.p95Text)")
        for (name, times) in [("boolean", booleanTimes), ("high-recall boolean", calibratedBooleanTimes)] {
            let slowest = times.indices.sorted { times[$0] > times[$1] }.prefix(3)
            progress?("  slowest \(name): " + slowest.map { String(format: "%.0f ms %@", times[$0], booleanTexts[$0]) }.joined(separator: " | "))
        }
        let (facetTimes, facetPages) = try await measure(facets)
        let facetSummary = LatencySummary(facetTimes)
        progress?("facets p95 \(facetSummary.p95Text)")
        return SearchLatencies(
            labelCount: labelCount, singleLabel: single, booleanSearch: boolean, calibratedSingleLabel: calibrated,
            calibratedBooleanSearch: calibratedBoolean, facets: facetSummary,
            facetResultSizes: facetPages.prefix(facetLabelCount).map(\.totalCount).sorted(), booleanExamples: booleanExamples)
    }
}

/// The search latencies of one benchmark run.
///
/// ```swift
/// print(result.searches.singleLabel.p95)
/// ```
package struct SearchLatencies: Sendable, Hashable {
    /// Labels carried by at least one image.
    package var labelCount: Int
    /// First page (50) of a single-label search.
    package var singleLabel: LatencySummary
    /// First page of a three-term boolean search.
    package var booleanSearch: LatencySummary
    /// First page of a single-label search with the high-recall filter (the tool's default).
    package var calibratedSingleLabel: LatencySummary
    /// First page of a three-term boolean search with the high-recall filter.
    package var calibratedBooleanSearch: LatencySummary
    /// First page plus 20 facets of a ~100k-result search.
    package var facets: LatencySummary
    /// Result-set sizes of the facet searches, ascending.
    package var facetResultSizes: [Int]
    /// A few of the boolean queries, to show their shape.
    package var booleanExamples: [String]
}
