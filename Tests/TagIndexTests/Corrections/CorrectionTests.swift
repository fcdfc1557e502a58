import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Corrections (`addLabel`, `removeLabel`, `clearCorrection`): search, labels and export agree,
/// and the corrections survive re-classification, moves and a new model stamp. Corrections are
/// written in SQLite (`SQLiteIndex`'s correction API) and read on both backends (``BackendIndex``);
/// SQLite-only: its postings and counts, and export records (export is not in `PostgresIndex` yet).
@Suite struct CorrectionTests {
    let fixture: FixtureIndex
    var index: SQLiteIndex { fixture.index }

    init() throws { fixture = try FixtureIndex() }

    /// The index as written so far, read through `backend` (a new copy each time on PostgreSQL).
    private func read(_ backend: Backend) async throws -> BackendIndex {
        try await BackendIndex.make(backend, copying: fixture)
    }

    /// Writes `path` again as the classifier would, with `observations`, `hash` and `model`.
    private func classify(
        _ path: String, _ observations: [(String, Double)], hash: String, model: ModelStamp = FixtureIndex.model
    ) throws {
        try index.write(batch: [.classified(ImageClassification(
            path: path, size: 1000, modificationTime: FixtureIndex.date(days: 20), contentHash: hash,
            width: 100, height: 100, model: model,
            observations: observations.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }))])
    }

    private func hash(_ path: String) -> String { ContentHash.hex(of: Array(path.utf8)) }

    @Test(arguments: Backend.allCases) func removingALabelRemovesItsSubtreeAndParentsNoOtherChildHolds(backend: Backend) async throws {
        let report = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        #expect(report.outcomes == [CorrectionOutcome(path: "/lib/a/golden1.jpg", failure: nil)])
        #expect(report.label.identifier == "dog" && !report.label.isUserLabel)
        let read = try await read(backend)
        // animal was held only by dog: it goes too; grass and outdoor stay.
        #expect(try await read.identifiers("/lib/a/golden1.jpg") == ["grass", "outdoor"])
        #expect(try await !read.sortedPaths("dog").contains("/lib/a/golden1.jpg"))
        #expect(try await !read.sortedPaths("golden").contains("/lib/a/golden1.jpg"))
        #expect(try await !read.sortedPaths("animal").contains("/lib/a/golden1.jpg"))
        #expect(try await read.sortedPaths("dog") == ["/lib/a/lab1.png", "/lib/b/flat1.jpg", "/lib/b/poodle1.jpg"])
        #expect(try await read.sortedPaths("grass").contains("/lib/a/golden1.jpg"))
        // Calibrated and boolean searches agree.
        var calibrated = try Query(parsing: "dog")
        calibrated.calibration = .highRecall
        #expect(try await !read.search(calibrated).hits.map(\.path).contains("/lib/a/golden1.jpg"))
        #expect(try await read.sortedPaths("animal -cat") == ["/lib/a/lab1.png", "/lib/b/flat1.jpg", "/lib/b/poodle1.jpg"])
        let corrections = try await read.corrections(forPath: "/lib/a/golden1.jpg")
        #expect(corrections.map(\.identifier) == ["dog"])
        #expect(corrections.first?.kind == .removed && corrections.first?.displayName == "Dog")
        #expect(corrections.first?.paths == ["/lib/a/golden1.jpg"])
        #expect(try await read.corrections(forPath: "/lib/a/lab1.png").isEmpty)
    }

    @Test(arguments: Backend.allCases) func aParentStaysWhereAnotherChildHoldsIt(backend: Backend) async throws {
        try classify("/lib/d/both.jpg", [("golden_retriever", 0.5), ("dog", 0.5), ("tabby", 0.4), ("cat", 0.4), ("animal", 0.9)], hash: "both")
        _ = try index.removeLabel("golden_retriever", from: ["/lib/d/both.jpg"])
        let read = try await read(backend)
        // dog had no other child here: it goes; animal is still held by cat, and loses the
        // retriever's share of its confidence (a parent's is the sum of its classes).
        #expect(try await read.identifiers("/lib/d/both.jpg") == ["animal", "cat", "tabby"])
        let animal = try #require(try await read.labels(forPath: "/lib/d/both.jpg").first { $0.identifier == "animal" })
        #expect(animal.confidence == 0.4)
        #expect(animal.subtreeConfidence == 0.4)
        #expect(try await read.sortedPaths("animal").contains("/lib/d/both.jpg"))
        #expect(try await !read.sortedPaths("dog").contains("/lib/d/both.jpg"))
        #expect(try await read.search("animal").hits.first { $0.path == "/lib/d/both.jpg" }?.score == 0.4)
    }

    @Test(arguments: Backend.allCases) func aClassWithTwoParentsTakesItsShareFromBoth(backend: Backend) async throws {
        // tabby also sits below indoor: removing cat (and so tabby) takes tabby's 0.75 from both.
        var labels = FixtureIndex.labels
        let position = try #require(labels.firstIndex { $0.identifier == "tabby" })
        labels[position].parents = ["cat", "indoor"]
        try index.replaceTaxonomy(labels, model: FixtureIndex.model)
        try classify("/lib/d/tabby2.jpg", [("tabby", 0.75), ("cat", 0.8), ("animal", 0.82), ("indoor", 0.9), ("grass", 0.3), ("outdoor", 0.3)], hash: "tabby2")
        _ = try index.removeLabel("cat", from: ["/lib/d/tabby2.jpg"])
        // animal and indoor held nothing else: both go; outdoor (grass) is untouched.
        let read = try await read(backend)
        #expect(try await read.identifiers("/lib/d/tabby2.jpg") == ["grass", "outdoor"])
        #expect(try await !read.sortedPaths("indoor").contains("/lib/d/tabby2.jpg"))
    }

    @Test(arguments: Backend.allCases) func anAddedLabelCountsWithConfidenceOne(backend: Backend) async throws {
        _ = try index.addLabel("Poodle", to: ["/lib/a/lab1.png"])
        let read = try await read(backend)
        let poodle = try #require(try await read.labels(forPath: "/lib/a/lab1.png").first { $0.identifier == "poodle" })
        #expect(poodle.confidence == 1)
        let hits = try await read.search("poodle").hits
        #expect(hits.map(\.path) == ["/lib/a/lab1.png", "/lib/b/poodle1.jpg"])
        #expect(hits.first?.score == 1)
        #expect(try await read.search("dog").hits.first?.path == "/lib/a/lab1.png")
        // Poodle has no calibration curve: a calibrated filter still keeps what a person added.
        var calibrated = try Query(parsing: "poodle")
        calibrated.calibration = .highPrecision
        #expect(try await read.search(calibrated).hits.map(\.path) == ["/lib/a/lab1.png"])
        // Facets count the added label.
        var faceted = try Query(parsing: "dog")
        faceted.facetCount = 10
        #expect(try await read.search(faceted).facets.first { $0.identifier == "poodle" }?.count == 2)
        // Calibrated: the curve-less poodle passes only where a person added it; dog (high
        // precision 0.85) passes on golden (0.95), poodle1 (0.88) and lab1 (raised to 1 by its poodle).
        faceted.calibration = .highPrecision
        let calibratedPage = try await read.search(faceted)
        #expect(calibratedPage.hits.map(\.path) == ["/lib/a/lab1.png", "/lib/a/golden1.jpg", "/lib/b/poodle1.jpg"])
        #expect(calibratedPage.facets.first { $0.identifier == "poodle" }?.count == 1)
        #expect(calibratedPage.facets.first { $0.identifier == "dog" }?.count == 3)
        var untagged = try Query(parsing: "untagged")
        untagged.calibration = .highPrecision
        #expect(try await !read.search(untagged).hits.map(\.path).contains("/lib/a/lab1.png"))
    }

    @Test(arguments: Backend.allCases) func userLabelsAreSearchableByExactNameAndPrefix(backend: Backend) async throws {
        let report = try index.addLabel("grandma", to: ["/lib/a/golden1.jpg", "/lib/c/beach1.jpg"])
        #expect(report.label == CorrectionLabel(identifier: "grandma", displayName: "grandma", isUserLabel: true))
        var read = try await read(backend)
        #expect(try await read.sortedPaths("grandma") == ["/lib/a/golden1.jpg", "/lib/c/beach1.jpg"])
        #expect(try await read.sortedPaths("grand*") == ["/lib/a/golden1.jpg", "/lib/c/beach1.jpg"])
        #expect(try await read.sortedPaths("grandma beach") == ["/lib/c/beach1.jpg"])
        var calibrated = try Query(parsing: "grandma")
        calibrated.calibration = .highRecall
        #expect(try await read.search(calibrated).hits.count == 2)
        let listed = try index.corrections()
        #expect(listed.count == 2)
        #expect(listed.allSatisfy { $0.isUserLabel && $0.kind == .added && $0.identifier == "grandma" })
        #expect(Set(listed.flatMap(\.paths)) == ["/lib/a/golden1.jpg", "/lib/c/beach1.jpg"])
        let onBeach = try await read.corrections(forPath: "/lib/c/beach1.jpg")
        #expect(onBeach.map(\.identifier) == ["grandma"] && onBeach.allSatisfy { $0.isUserLabel && $0.kind == .added })
        // A second correction with the same name is the same user label.
        #expect(try index.addLabel("grandma", to: ["/lib/b/flat1.jpg"]).label.isUserLabel)
        read = try await self.read(backend)
        #expect(try await read.sortedPaths("grandma").count == 3)
    }

    @Test(arguments: Backend.allCases) func correctionsSurviveReclassificationMovesAndANewModel(backend: Backend) async throws {
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        _ = try index.addLabel("beach", to: ["/lib/a/golden1.jpg"])
        let model = [("golden_retriever", 0.9), ("dog", 0.95), ("animal", 0.97), ("grass", 0.6), ("outdoor", 0.7)]
        let expected = ["beach", "grass", "outdoor"]
        // Classified again (touched), same content.
        try classify("/lib/a/golden1.jpg", model, hash: hash("/lib/a/golden1.jpg"))
        #expect(try await read(backend).identifiers("/lib/a/golden1.jpg") == expected)
        // A new model stamp.
        try classify("/lib/a/golden1.jpg", model, hash: hash("/lib/a/golden1.jpg"), model: ModelStamp(name: "lite0", version: "2"))
        #expect(try await read(backend).identifiers("/lib/a/golden1.jpg") == expected)
        // The same content at another path (a move the index classifies again).
        _ = try index.remove(paths: ["/lib/a/golden1.jpg"])
        try classify("/lib/moved/golden.jpg", model, hash: hash("/lib/a/golden1.jpg"))
        // Other content is not corrected.
        try classify("/lib/other.jpg", model, hash: "other content")
        let read = try await read(backend)
        #expect(try await read.identifiers("/lib/moved/golden.jpg") == expected)
        #expect(try await read.sortedPaths("dog").contains("/lib/moved/golden.jpg") == false)
        #expect(try await read.sortedPaths("beach").contains("/lib/moved/golden.jpg"))
        #expect(try await read.identifiers("/lib/other.jpg").contains("dog"))
        #expect(try await read.corrections(forPath: "/lib/moved/golden.jpg").map(\.identifier).sorted() == ["beach", "dog"])
        // The second stamp's only file moved away: every file is the first stamp's.
        #expect(try await read.modelUsage() == [ModelUsage(model: FixtureIndex.model, imageCount: 9)])
    }

    @Test(arguments: Backend.allCases) func clearingACorrectionRestoresTheModelsLabels(backend: Backend) async throws {
        let before = try await read(backend).labels(forPath: "/lib/a/golden1.jpg")
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        _ = try index.addLabel("tabby", to: ["/lib/a/golden1.jpg"])
        _ = try index.clearCorrection(of: "dog", on: ["/lib/a/golden1.jpg"])
        _ = try index.clearCorrection(of: "tabby", on: ["/lib/a/golden1.jpg"])
        let read = try await read(backend)
        #expect(try await read.labels(forPath: "/lib/a/golden1.jpg") == before)
        #expect(try await read.corrections(forPath: "/lib/a/golden1.jpg").isEmpty)
        #expect(try await read.paths("dog") == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        #expect(try await read.paths("tabby") == ["tabby1.jpg"])
    }

    /// SQLite only: clearing every correction leaves no model labels and postings that match.
    @Test func clearingEveryCorrectionLeavesNoTrace() throws {
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        _ = try index.addLabel("tabby", to: ["/lib/a/golden1.jpg"])
        _ = try index.clearCorrection(of: "dog", on: ["/lib/a/golden1.jpg"])
        _ = try index.clearCorrection(of: "tabby", on: ["/lib/a/golden1.jpg"])
        #expect(try index.corrections().isEmpty)
        #expect(try index.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM model_labels") } == 0)
        #expect(try index.database.read(Postings.matchObservations))
    }

    @Test(arguments: Backend.allCases) func removingAParentTakesBackAdditionsBelowIt(backend: Backend) async throws {
        _ = try index.addLabel("poodle", to: ["/lib/a/golden1.jpg"])
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        #expect(try await !read(backend).identifiers("/lib/a/golden1.jpg").contains("poodle"))
        #expect(try index.corrections().map(\.identifier) == ["dog"])
        // Adding a breed after removing dog brings dog back as its parent.
        _ = try index.addLabel("poodle", to: ["/lib/a/golden1.jpg"])
        let read = try await read(backend)
        #expect(try await read.identifiers("/lib/a/golden1.jpg") == ["animal", "dog", "grass", "outdoor", "poodle"])
        #expect(try await read.search("poodle").hits.map(\.path) == ["/lib/a/golden1.jpg", "/lib/b/poodle1.jpg"])
    }

    @Test(arguments: Backend.allCases) func pathsThatCannotBeCorrectedFailAlone(backend: Backend) async throws {
        let report = try index.addLabel("dog", to: ["/lib/c/broken.jpg", "/nowhere.jpg", "/lib/c/beach1.jpg"])
        #expect(report.outcomes.map { $0.failure == nil } == [false, false, true])
        #expect(report.outcomes[0].failure?.contains("failed") == true)
        #expect(report.outcomes[1].failure?.contains("not in the index") == true)
        let read = try await read(backend)
        #expect(try await read.sortedPaths("dog").contains("/lib/c/beach1.jpg"))
        #expect(try await read.sortedPaths("failed") == ["/lib/c/broken.jpg"])
        #expect(throws: TagIndexError.self) { try index.removeLabel("no such label", from: ["/lib/c/beach1.jpg"]) }
        #expect(throws: TagIndexError.self) { try index.addLabel("a|b", to: ["/lib/c/beach1.jpg"]) }
        #expect(throws: TagIndexError.self) { try index.addLabel("  ", to: ["/lib/c/beach1.jpg"]) }
    }

    /// SQLite only: label counts and postings after corrections.
    @Test func countsAndPostingsStayConsistent() throws {
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg", "/lib/b/poodle1.jpg"])
        _ = try index.addLabel("cat", to: ["/lib/c/beach1.jpg"])
        try index.database.read { db in
            #expect(try Postings.matchObservations(db))
            let mismatched = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM labels
                WHERE image_count <> (SELECT COUNT(*) FROM observations WHERE label_id = labels.id)
                """)
            #expect(mismatched == 0)
        }
    }

    @Test(arguments: Backend.allCases) func totalsAndFacetsCountTheCorrectedLabels(backend: Backend) async throws {
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg", "/lib/b/poodle1.jpg"])
        _ = try index.addLabel("cat", to: ["/lib/c/beach1.jpg"])
        let read = try await read(backend)
        #expect(try await read.search("animal").totalCount == 4)
        var query = try Query(parsing: "animal")
        query.facetCount = 5
        let facets = try await read.search(query).facets
        #expect(facets.first { $0.identifier == "dog" }?.count == 2)
        #expect(facets.first { $0.identifier == "cat" }?.count == 2)
        #expect(try await read.statistics() == index.statistics())
    }

    /// SQLite only: export is not in `PostgresIndex` yet.
    @Test func exportRecordsCarryTheCorrectedSet() throws {
        _ = try index.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        _ = try index.addLabel("grandma", to: ["/lib/a/golden1.jpg"])
        var records: [ExportRecord] = []
        try index.exportRecords(matching: try Query(parsing: "grandma"), filter: .highPrecision) { records.append($0) }
        #expect(records.map(\.path) == ["/lib/a/golden1.jpg"])
        let record = try #require(records.first)
        #expect(record.labels.map(\.identifier) == ["grandma"])
        #expect(record.labels.first?.isUserLabel == true)
        #expect(record.labels.first?.isAdded == true)
        #expect(record.labels.first?.hierarchy == [["grandma"]])
        #expect(record.removedLabels == ["dog"])
        var all: [ExportRecord] = []
        try index.exportRecords(filter: nil) { all.append($0) }
        #expect(all.map(\.path) == all.map(\.path).sorted())
        #expect(all.count == FixtureIndex.images.count + 1)
        let golden = try #require(all.first { $0.path == "/lib/a/golden1.jpg" })
        #expect(golden.labels.map(\.identifier) == ["grandma", "outdoor", "grass"])
        let lab = try #require(all.first { $0.path == "/lib/a/lab1.png" })
        #expect(lab.labels.first { $0.identifier == "labrador_retriever" }?.hierarchy == [["Animal", "Dog", "Labrador Retriever"]])
        #expect(all.first { $0.path == "/lib/c/broken.jpg" }?.failureStage == "decode")
    }

    @Test(arguments: Backend.allCases) func aNewTaxonomyReappliesRemovals(backend: Backend) async throws {
        _ = try index.removeLabel("cat", from: ["/lib/b/tabby1.jpg"])
        #expect(try await read(backend).identifiers("/lib/b/tabby1.jpg") == ["indoor"])
        // tabby moves out from under cat: it is the model's again, cat stays removed.
        var labels = FixtureIndex.labels
        let position = try #require(labels.firstIndex { $0.identifier == "tabby" })
        labels[position].parents = ["animal"]
        try index.replaceTaxonomy(labels, model: FixtureIndex.model)
        let read = try await read(backend)
        #expect(try await read.identifiers("/lib/b/tabby1.jpg") == ["animal", "indoor", "tabby"])
        #expect(try await read.paths("cat").isEmpty)
        #expect(try await read.paths("animal tabby") == ["tabby1.jpg"])
    }
}

extension BackendIndex {
    /// The identifiers of a file's stored labels, sorted.
    fileprivate func identifiers(_ path: String) async throws -> [String] {
        try await labels(forPath: path).map(\.identifier).sorted()
    }

    /// The full paths of a search's hits, sorted.
    fileprivate func sortedPaths(_ query: String) async throws -> [String] {
        try await search(query).hits.map(\.path).sorted()
    }
}
