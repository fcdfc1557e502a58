import Foundation
import Testing
@testable import TagIndex

/// The search language on the fixture, on both backends (``BackendIndex``). SQLite-only: the
/// tests of its dense engine's internals (engine choice, postings, facets from postings) and of
/// the in-memory SQLite index.
@Suite struct SearchTests {

    @Test(arguments: Backend.allCases) func termMatchesItsSubtreeByConfidence(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("dog") == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        let page = try await fixture.index.search("dog")
        #expect(page.hits.map(\.score) == [0.95, 0.88, 0.8, 0.5])
        #expect(page.totalCount == 4)
        #expect(try await fixture.paths("animal").count == 5)
    }

    @Test(arguments: Backend.allCases) func namesAreCaseInsensitiveAndUnderscoreIsSpace(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("golden_retriever") == ["golden1.jpg"])
        #expect(try await fixture.paths("GOLDEN_Retriever") == ["golden1.jpg"])
        #expect(try await fixture.paths("\"golden retriever\"") == ["golden1.jpg"])
        #expect(try await fixture.paths("\"Golden  Retriever\"") == ["golden1.jpg"])
        #expect(try await fixture.paths("puppy") == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        #expect(try await fixture.paths("kitty") == ["tabby1.jpg"])
    }

    @Test(arguments: Backend.allCases) func freeTextAndPrefixFindEveryRetriever(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let retrievers = ["golden1.jpg", "lab1.png", "flat1.jpg"]
        #expect(try await fixture.paths("retriever") == retrievers)
        #expect(try await fixture.paths("retriev*") == retrievers)
        #expect(try await fixture.paths("\"coated retriever\"") == ["flat1.jpg"])
        #expect(try await fixture.paths("\"golden retr\"*") == ["golden1.jpg"])
        // A quoted prefix is a phrase: its words in this order, next to each other.
        #expect(try await fixture.paths("\"labrador retr\"*") == ["lab1.png"])
        await #expect {
            try await fixture.paths("\"retriever gold\"*")
        } throws: { error in
            guard case .unknownLabel(let term, _, _) = error as? TagIndexError else { return false }
            return term == "retriever gold"
        }
        #expect(try await fixture.paths("\"coated retr\"*") == ["flat1.jpg"])
        #expect(try await fixture.index.search("retriever").hits.map(\.score) == [0.9, 0.7, 0.4])
    }

    @Test(arguments: Backend.allCases) func booleanOperatorsAndScores(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("dog -indoor") == ["golden1.jpg", "lab1.png"])
        #expect(try await fixture.paths("dog NOT indoor:0.5") == ["golden1.jpg", "poodle1.jpg", "lab1.png"])
        #expect(try await fixture.paths("cat OR beach") == ["beach1.jpg", "tabby1.jpg", "lab1.png"])
        let mixed = try await fixture.index.search("(cat OR beach) outdoor")
        #expect(mixed.hits.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["beach1.jpg", "lab1.png"])
        #expect(mixed.hits.map(\.score) == [0.95, 0.5])
        #expect(try await fixture.paths("dog AND outdoor AND grass") == ["golden1.jpg"])
        #expect(try await fixture.index.search("dog AND outdoor AND grass").hits.map(\.score) == [0.6])
        #expect(try await fixture.paths("animal AND NOT (dog OR cat)") == [])
        let negative = try await fixture.index.search("NOT animal")
        #expect(Set(negative.hits.map(\.path)) == ["/lib/c/beach1.jpg", "/lib/c/blank.jpg"])
        #expect(negative.hits.map(\.score) == [0, 0])
        #expect(try await fixture.paths("-animal -outdoor") == ["blank.jpg"])
        #expect(try await fixture.paths("dog OR -animal").count == 6)
    }

    /// A group of negations only has no score of its own: AND-ed with a term it keeps the term's
    /// score, as the same negations at the top level do.
    @Test(arguments: Backend.allCases) func aGroupOfNegationsKeepsTheOtherTermsScore(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let flat = try await fixture.index.search("dog -indoor -cat")
        let grouped = try await fixture.index.search("dog (-indoor -cat)")
        #expect(flat.hits.map(\.path) == ["/lib/a/golden1.jpg", "/lib/a/lab1.png"])
        #expect(grouped.hits.map(\.path) == flat.hits.map(\.path))
        #expect(grouped.hits.map(\.score) == [0.95, 0.8])
        #expect(try await fixture.index.search("(-indoor -cat) outdoor:0.6").hits.map(\.score) == [0.96, 0.7])
        // With a file filter the query runs as SQL instead of on the dense postings.
        #expect(try await fixture.index.search("dog (-indoor -cat) under:/lib/a").hits.map(\.score) == [0.95, 0.8])
        #expect(try await fixture.index.search("dog (-indoor -cat) type:png").hits.map(\.score) == [0.8])
    }

    @Test(arguments: Backend.allCases) func perTermAndGlobalConfidence(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("dog:0.85") == ["golden1.jpg", "poodle1.jpg"])
        var query = try Query(parsing: "dog")
        query.minimumConfidence = 0.85
        #expect(try await fixture.paths(query) == ["golden1.jpg", "poodle1.jpg"])
        #expect(try await fixture.paths("min:0.85 dog") == ["golden1.jpg", "poodle1.jpg"])
        // A per-term threshold replaces the global one.
        query = try Query(parsing: "dog:0.5")
        query.minimumConfidence = 0.9
        #expect(try await fixture.paths(query) == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
    }

    @Test(arguments: Backend.allCases) func calibratedFilters(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        // High precision (precision >= 0.9): dog 0.85, golden 0.6, cat 0.7; others have no curve.
        var query = try Query(parsing: "dog")
        query.calibration = .highPrecision
        #expect(try await fixture.paths(query) == ["golden1.jpg", "poodle1.jpg"])
        // High recall (recall >= 0.8, precision >= 0.1): dog 0.5, golden 0.3, cat 0.7.
        query.calibration = .highRecall
        #expect(try await fixture.paths(query) == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        query = try Query(parsing: "golden_retriever")
        query.calibration = .precision(0.95)
        #expect(try await fixture.paths(query) == [])
        query = try Query(parsing: "beach")
        query.calibration = .highRecall
        #expect(try await fixture.paths(query) == [])
        query = try Query(parsing: "cat OR dog")
        query.calibration = .highPrecision
        #expect(try await fixture.paths(query) == ["golden1.jpg", "poodle1.jpg", "tabby1.jpg"])
        #expect(try await fixture.paths("(cat OR dog) filter:high-precision") == ["golden1.jpg", "poodle1.jpg", "tabby1.jpg"])
        #expect(try await fixture.paths("dog recall:0.8") == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        #expect(try await fixture.paths("dog precision:0.9") == ["golden1.jpg", "poodle1.jpg"])
    }

    @Test(arguments: Backend.allCases) func fileFilters(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("dog under:/lib/a") == ["golden1.jpg", "lab1.png"])
        #expect(try await fixture.paths("dog under:/lib/a/") == ["golden1.jpg", "lab1.png"])
        #expect(try await fixture.paths("dog under:/lib") .count == 4)
        #expect(try await fixture.paths("dog under:/li") == [])
        #expect(try await fixture.paths("dog type:png") == ["lab1.png"])
        #expect(try await fixture.paths("dog type:PNG,.jpg").count == 4)
        #expect(try await fixture.paths("dog minwidth:1600 minheight:1200") == ["golden1.jpg", "poodle1.jpg", "flat1.jpg"])
        #expect(try await fixture.paths("dog minsize:1MB") == ["golden1.jpg", "flat1.jpg"])
        #expect(try await fixture.paths("dog maxsize:800KB") == ["poodle1.jpg", "lab1.png"])
        #expect(try await fixture.paths("dog after:2023-11-16 before:2023-11-18") == ["lab1.png", "flat1.jpg"])
        var query = try Query(parsing: "dog")
        query.filters.folders = ["/lib/b"]
        query.filters.minimumBytes = 1_000_000
        #expect(try await fixture.paths(query) == ["flat1.jpg"])
    }

    @Test(arguments: Backend.allCases) func untaggedAndFailed(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        #expect(try await fixture.paths("untagged") == ["blank.jpg"])
        #expect(try await fixture.paths("is:untagged under:/lib/c") == ["blank.jpg"])
        let strict = try await fixture.paths("untagged min:0.965")
        #expect(Set(strict) == ["lab1.png", "flat1.jpg", "poodle1.jpg", "tabby1.jpg", "blank.jpg", "beach1.jpg"])
        var calibrated = try Query(parsing: "untagged")
        calibrated.calibration = .highPrecision
        #expect(Set(try await fixture.paths(calibrated)) == ["lab1.png", "flat1.jpg", "beach1.jpg", "blank.jpg"])
        let failed = try await fixture.index.search("failed")
        #expect(failed.hits.count == 1)
        #expect(failed.hits.first?.path == "/lib/c/broken.jpg")
        #expect(failed.hits.first?.failureStage == "decode")
        #expect(failed.hits.first?.failureReason == "truncated JPEG")
        #expect(failed.hits.first?.width == nil)
        #expect(try await fixture.paths("failed dog") == [])
        #expect(try await fixture.paths("").count == 7)
    }

    @Test(arguments: Backend.allCases) func sortingAndPagination(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        var query = try Query(parsing: "animal")
        query.sort = .path
        #expect(try await fixture.paths(query) == ["golden1.jpg", "lab1.png", "flat1.jpg", "poodle1.jpg", "tabby1.jpg"])
        query.sort = .date
        #expect(try await fixture.paths(query) == ["tabby1.jpg", "poodle1.jpg", "flat1.jpg", "lab1.png", "golden1.jpg"])
        query.sort = .confidence
        query.limit = 2
        query.page = 2
        let page = try await fixture.index.search(query)
        #expect(page.hits.map(\.path) == ["/lib/a/lab1.png", "/lib/b/tabby1.jpg"])
        #expect(page.totalCount == 5)
        #expect(page.pageCount == 3)
        query.page = 4
        let beyond = try await fixture.index.search(query)
        #expect(beyond.hits.isEmpty)
        #expect(beyond.totalCount == 5)
        query.page = 0
        await #expect(throws: TagIndexError.self) { try await fixture.index.search(query) }
    }

    @Test(arguments: Backend.allCases) func hitsCarryFileFacts(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let hit = try #require(try await fixture.index.search("tabby").hits.first)
        #expect(hit.path == "/lib/b/tabby1.jpg")
        #expect(hit.size == 900_000)
        #expect(hit.width == 1200)
        #expect(hit.height == 1600)
        #expect(hit.modificationTime == FixtureIndex.date(days: 5))
        #expect(hit.failureStage == nil)
    }

    @Test(arguments: Backend.allCases) func facetsCountLabelsOfTheWholeResultSet(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        var query = try Query(parsing: "dog")
        query.facetCount = 4
        query.limit = 1
        let page = try await fixture.index.search(query)
        #expect(page.facets.map(\.identifier) == ["animal", "dog", "indoor", "outdoor"])
        #expect(page.facets.map(\.count) == [4, 4, 2, 2])
        #expect(page.facets.first?.displayName == "Animal")
        query.minimumConfidence = 0.6
        query.facetCount = 3
        let strict = try await fixture.index.search(query)
        #expect(strict.facets.map(\.identifier) == ["animal", "dog", "golden_retriever"])
        #expect(strict.facets.map(\.count) == [3, 3, 1])
    }

    @Test(arguments: Backend.allCases) func unknownLabelSuggestsClosestNames(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        do {
            _ = try await fixture.index.search("dgo")
            Issue.record("expected an unknown label error")
        } catch let error as TagIndexError {
            guard case .unknownLabel(let term, let offset, let suggestions) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(term == "dgo")
            #expect(offset == 0)
            #expect(suggestions.first == "dog")
            #expect(error.description.contains("did you mean 'dog'"))
        }
        do {
            _ = try await fixture.index.search("beach poodel")
            Issue.record("expected an unknown label error")
        } catch let error as TagIndexError {
            #expect(error == .unknownLabel(term: "poodel", offset: 6, suggestions: ["poodle"]))
        }
    }

    @Test(arguments: Backend.allCases) func injectionAttemptsArePlainText(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let before = try await fixture.index.statistics()
        for text in [
            "dog'; DROP TABLE images; --", "\"dog'; DROP TABLE images; --\"",
            "under:\"/lib'; DROP TABLE images; --\" dog", "type:jpg'--", "\"dog\" OR 1=1",
            "retriever\" OR \"1\"=\"1", "dog* ) OR (", "label_text:*",
        ] {
            do {
                let page = try await fixture.index.search(text)
                #expect(page.hits.count <= 7)
            } catch is TagIndexError {
            } catch is QuerySyntaxError {
            }
        }
        #expect(try await fixture.paths("under:\"/lib'; DROP TABLE images; --\" dog") == [])
        #expect(try await fixture.index.statistics() == before)
        #expect(try await fixture.paths("dog").count == 4)
    }

    @Test(arguments: Backend.allCases) func codeBuiltQueriesMatchParsedOnes(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let built = Query(.and([.word("dog"), .not(.word("indoor"))]))
        #expect(try await fixture.paths(built) == fixture.paths("dog -indoor"))
        let prefix = Query(.term(SearchTerm("retriev", kind: .prefix)))
        #expect(try await fixture.paths(prefix) == ["golden1.jpg", "lab1.png", "flat1.jpg"])
        for engine in [Query.Engine.automatic, .sql] {
            var empty = Query(.or([]))
            empty.engine = engine
            #expect(try await fixture.paths(empty) == [])
            var everything = Query(.and([]))
            everything.engine = engine
            #expect(try await fixture.paths(everything).count == 7)
            var single = Query(.or([.word("tabby")]))
            single.engine = engine
            #expect(try await fixture.paths(single) == ["tabby1.jpg"])
        }
        let huge = Query(.or(Array(repeating: .word("dog"), count: 101)))
        await #expect(throws: TagIndexError.invalidInput("a query has at most 100 terms")) { try await fixture.index.search(huge) }
        var deep = QueryExpression.word("dog")
        for _ in 0..<70 { deep = .not(deep) }
        await #expect(throws: TagIndexError.invalidInput("a query nests at most 64 levels")) {
            try await fixture.index.search(Query(deep))
        }
    }

    @Test(arguments: Backend.allCases) func storedLabelsAndSubtreeConfidence(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let labels = try await fixture.labels(forPath: "/lib/a/golden1.jpg")
        #expect(labels.map(\.identifier) == ["animal", "dog", "golden_retriever", "outdoor", "grass"])
        #expect(labels.first?.confidence == 0.97)
        #expect(try await fixture.labels(forPath: "/lib/c/blank.jpg").isEmpty)
        #expect(try await fixture.labels(forPath: "/nope").isEmpty)
    }

    /// Equal scores and dates: the image written last comes first (ids descending); paths sort in
    /// byte order (capitals before small letters, UTF-8 after ASCII); a folder holds only what is
    /// below it, not its namesakes.
    @Test(arguments: Backend.allCases) func tiesPathOrderAndFolderBoundaries(backend: Backend) async throws {
        let written = try FixtureIndex()
        let names = ["/t/B.jpg", "/t/a.jpg", "/t/é.jpg", "/t/Z.JPG", "/t/a b/x.jpg", "/t/ab/y.png", "/t/a/z.jpg"]
        try written.index.write(batch: names.map { path in
            .classified(ImageClassification(
                path: path, size: 10, modificationTime: FixtureIndex.date(days: 10), contentHash: path, width: 10, height: 10,
                model: FixtureIndex.model, observations: [LabelConfidence(identifier: "beach", confidence: 0.5)]))
        })
        let fixture = try await BackendIndex.make(backend, copying: written)
        func paths(_ text: String, _ configure: (inout Query) -> Void) async throws -> [String] {
            var query = try Query(parsing: text)
            configure(&query)
            return try await fixture.search(query).hits.map(\.path)
        }
        let newestFirst = Array(names.reversed())
        #expect(try await paths("beach under:/t") { $0.sort = .confidence } == newestFirst)
        #expect(try await paths("beach under:/t") { $0.sort = .date } == newestFirst)
        #expect(try await paths("under:/t") { $0.sort = .date } == newestFirst)
        #expect(try await paths("beach under:/t") { $0.sort = .confidence; $0.limit = 3; $0.page = 2 } == Array(newestFirst[3..<6]))
        #expect(try await paths("beach under:/t") { $0.sort = .date; $0.limit = 3; $0.page = 3 } == [newestFirst[6]])
        #expect(try await paths("beach under:/t") { $0.sort = .path }
            == ["/t/B.jpg", "/t/Z.JPG", "/t/a b/x.jpg", "/t/a.jpg", "/t/a/z.jpg", "/t/ab/y.png", "/t/é.jpg"])
        #expect(try await paths("beach under:/t") { $0.sort = .path; $0.limit = 2; $0.page = 4 } == ["/t/é.jpg"])
        #expect(try await paths("beach under:/t/a") { $0.sort = .path } == ["/t/a/z.jpg"])
        #expect(try await paths("under:/t/a/") { $0.sort = .path } == ["/t/a/z.jpg"])
        #expect(try await paths("beach under:/t type:jpg") { $0.sort = .path }
            == ["/t/B.jpg", "/t/Z.JPG", "/t/a b/x.jpg", "/t/a.jpg", "/t/a/z.jpg", "/t/é.jpg"])
        #expect(try await paths("type:png under:/t") { $0.sort = .path } == ["/t/ab/y.png"])
        #expect(try await paths("beach under:/t under:/t/ab") { $0.sort = .path } == ["/t/ab/y.png"])
        #expect(try await paths("beach under:/t/a under:/t/ab") { $0.sort = .path }.isEmpty)
        // Facets count the whole result set, not the page (a label raises its parents: outdoor).
        var query = try Query(parsing: "beach")
        query.limit = 1
        query.facetCount = 2
        let page = try await fixture.search(query)
        #expect(page.totalCount == 9 && page.hits.map(\.path) == ["/lib/c/beach1.jpg"])
        #expect(page.facets.map(\.identifier) == ["beach", "outdoor"] && page.facets.map(\.count) == [9, 9])
    }

    /// Names with accents, apostrophes, hyphens and digits, as exact names, free text, phrases and
    /// prefixes (free text is FTS5 on SQLite, an index in memory on PostgreSQL).
    @Test(arguments: Backend.allCases) func accentsAndPunctuationInNames(backend: Backend) async throws {
        let written = try FixtureIndex()
        try written.index.replaceTaxonomy(FixtureIndex.labels + [
            LabelDefinition(identifier: "jack-o'-lantern", displayName: "Jack-o'-Lantern", synonyms: ["Café crème", "naïve_bayes"]),
            LabelDefinition(identifier: "x_ray_tube", displayName: "X-ray tube 2000", synonyms: ["Röntgen_röhre"]),
            LabelDefinition(identifier: "golden_gate", displayName: "Golden Gate", synonyms: ["bridge"]),
        ], model: FixtureIndex.model)
        let odd: [(String, String, Double)] = [
            ("/o/lantern.jpg", "jack-o'-lantern", 0.9), ("/o/tube.jpg", "x_ray_tube", 0.8), ("/o/gate.jpg", "golden_gate", 0.7),
        ]
        try written.index.write(batch: odd.map { path, label, confidence in
            .classified(ImageClassification(
                path: path, size: 1, modificationTime: FixtureIndex.epoch, contentHash: path, width: 1, height: 1,
                model: FixtureIndex.model, observations: [LabelConfidence(identifier: label, confidence: confidence)]))
        })
        let fixture = try await BackendIndex.make(backend, copying: written)
        #expect(try await fixture.paths("\"jack-o'-lantern\"") == ["lantern.jpg"])
        #expect(try await fixture.paths("\"Café crème\"") == ["lantern.jpg"])
        #expect(try await fixture.paths("\"CAFÉ CRÈME\"") == ["lantern.jpg"])
        #expect(try await fixture.paths("naïve_bayes") == ["lantern.jpg"])
        #expect(try await fixture.paths("crème") == ["lantern.jpg"])
        #expect(try await fixture.paths("lantern") == ["lantern.jpg"])
        #expect(try await fixture.paths("lant*") == ["lantern.jpg"])
        #expect(try await fixture.paths("röntgen") == ["tube.jpg"])
        #expect(try await fixture.paths("\"x ray\"") == ["tube.jpg"])
        // A year, but free text finds it in a label's name: the label, with a note.
        #expect(try await fixture.paths("2000") == ["tube.jpg"])
        #expect(try await fixture.search("2000").notes == ["'2000' is searched as a label; for photos taken in 2000, write taken:2000."])
        #expect(try await fixture.paths("200*") == ["tube.jpg"])
        // `golden` names golden_retriever (a synonym); `gold*` also finds Golden Gate.
        #expect(try await fixture.paths("golden") == ["golden1.jpg"])
        #expect(try await fixture.paths("gold*") == ["golden1.jpg", "gate.jpg"])
        #expect(try await fixture.paths("\"golden gate\"") == ["gate.jpg"])
        #expect(try await fixture.paths("bridge OR tube -lantern") == ["tube.jpg", "gate.jpg"])
    }

    /// What the index holds about one file, its models and whether it is calibrated.
    @Test(arguments: Backend.allCases) func imageDetailsAndIndexFacts(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let golden = try #require(try await fixture.image(atPath: "/lib/a/golden1.jpg"))
        #expect(golden.size == 3_000_000 && golden.width == 4000 && golden.height == 3000)
        #expect(golden.modificationTime == FixtureIndex.date(days: 1))
        #expect(golden.contentHash == ContentHash.hex(of: Array("/lib/a/golden1.jpg".utf8)))
        #expect(golden.model == FixtureIndex.model)
        #expect(golden.failureStage == nil && golden.failureReason == nil && !golden.hasFeaturePrint)
        #expect(try golden.indexedAt == fixture.sqlite.image(atPath: "/lib/a/golden1.jpg")?.indexedAt)
        let broken = try #require(try await fixture.image(atPath: "/lib/c/broken.jpg"))
        #expect(broken.failureStage == "decode" && broken.failureReason == "truncated JPEG")
        #expect(broken.width == nil && broken.height == nil && broken.contentHash == nil && broken.size == 10)
        #expect(try await fixture.image(atPath: "/lib/nope.jpg") == nil)
        #expect(try await fixture.labels(forPath: "/lib/c/broken.jpg").isEmpty)
        #expect(try await fixture.faces(forPath: "/lib/a/golden1.jpg") == nil)
        #expect(try await fixture.corrections(forPath: "/lib/a/golden1.jpg").isEmpty)
        #expect(try await fixture.modelUsage() == [ModelUsage(model: FixtureIndex.model, imageCount: 8)])
        #expect(try await fixture.hasCalibration())
        let statistics = try await fixture.statistics()
        #expect(statistics.imageCount == 7 && statistics.failedCount == 1 && statistics.labelCount == FixtureIndex.labels.count)
        // blank.jpg's grass (0.005) is below the storage floor.
        #expect(statistics.observationCount == FixtureIndex.images.map(\.5.count).reduce(0, +) - 1)
    }

    /// SQLite only: its dense engine against its SQL engine, with facets and calibrated filters.
    @Test func denseAndSQLEnginesAgree() throws {
        let fixture = try FixtureIndex()
        for text in [
            "dog", "dog -indoor", "dog NOT indoor:0.5", "cat OR beach", "(cat OR beach) outdoor",
            "dog AND outdoor AND grass", "animal AND NOT (dog OR cat)", "NOT animal", "-animal -outdoor",
            "dog OR -animal", "retriever", "retriev* -golden", "(dog OR cat) (indoor OR outdoor) -tabby",
            "min:0.6 animal -indoor", "dog:0.85 OR beach",
        ] {
            var automatic = try Query(parsing: text)
            automatic.facetCount = 5
            var sql = automatic
            sql.engine = .sql
            let fast = try fixture.index.search(automatic)
            let reference = try fixture.index.search(sql)
            #expect(fast == reference, "\(text)")
            // Calibrated too: the dense engine reads each label's postings with its own threshold.
            for calibration in [CalibratedFilter.highRecall, .highPrecision, .recall(0.5)] {
                automatic.calibration = calibration
                sql.calibration = calibration
                #expect(try fixture.index.search(automatic) == fixture.index.search(sql), "\(text) \(calibration)")
            }
        }
    }

    /// SQLite only: which queries its dense engine answers.
    @Test func booleanAndFacetQueriesUseTheDenseEngine() throws {
        let dog = MatchPlan.labels(LabelMatch(roots: [1], threshold: 100, calibrated: nil, estimate: 4))
        let cat = MatchPlan.labels(LabelMatch(roots: [2], threshold: 100, calibrated: nil, estimate: 1))
        var query = Query(.word("dog"))
        #expect(Searcher.prefersDenseEvaluation(dog, query) == false)
        #expect(Searcher.prefersDenseEvaluation(.and([dog, .not(cat)]), query) == true)
        query.facetCount = 3
        #expect(Searcher.prefersDenseEvaluation(dog, query) == true)
        query.filters.folders = ["/lib"]
        #expect(Searcher.prefersDenseEvaluation(.and([dog, cat]), query) == false)
        query = Query(.word("dog"))
        query.sort = .path
        #expect(Searcher.prefersDenseEvaluation(.or([dog, cat]), query) == false)
        // A calibrated term (each label of the subtree with its own threshold) is dense even alone.
        let calibratedDog = MatchPlan.labels(LabelMatch(roots: [], threshold: 100, calibrated: [(1, 5000), (3, 3000)], estimate: 4))
        query = Query(.word("dog"))
        query.calibration = .highRecall
        #expect(Searcher.prefersDenseEvaluation(calibratedDog, query) == true)
    }

    /// On SQLite the dense engine probes large operands instead of scanning them (``BackendIndex``
    /// checks it against the SQL engine); both backends give the same answers.
    @Test(arguments: Backend.allCases) func probingLargeOperandsAgreesWithSQL(backend: Backend) async throws {
        // 40 more animals make animal and indoor large next to tabby, so the
        // dense engine probes them instead of scanning.
        let written = try FixtureIndex()
        try written.index.write(batch: (0..<40).map { number in
            .classified(ImageClassification(
                path: "/lib/d/extra\(number).jpg", size: 1, modificationTime: FixtureIndex.epoch,
                contentHash: "extra\(number)", width: 1, height: 1, model: FixtureIndex.model,
                observations: [LabelConfidence(identifier: "animal", confidence: 0.5),
                               LabelConfidence(identifier: "indoor", confidence: 0.4)]))
        })
        let fixture = try await BackendIndex.make(backend, copying: written)
        for text in ["tabby animal", "tabby -indoor", "tabby indoor:0.85", "tabby -indoor:0.95", "kitty -animal"] {
            _ = try await fixture.search(text)
        }
        #expect(try await fixture.paths("tabby animal") == ["tabby1.jpg"])
        #expect(try await fixture.search("tabby animal").hits.map(\.score) == [0.75])
        #expect(try await fixture.paths("tabby -indoor:0.95") == ["tabby1.jpg"])
        #expect(try await fixture.paths("tabby -indoor") == [])
        #expect(try await fixture.paths("kitty -animal") == [])
        #expect(try await fixture.search("animal").totalCount == 45)
    }

    /// SQLite only: facets counted from its postings against facets from the packed labels.
    @Test func facetsFromPostingsEqualFacetsFromPackedLabels() throws {
        let fixture = try FixtureIndex()
        try fixture.index.database.read { db in
            #expect(try Postings.matchObservations(db))
            let postings = try SQLitePostings(db: db)
            let evaluator = DenseEvaluator(source: postings, total: 8)
            let taxonomy = try fixture.index.taxonomy(db)
            for text in ["animal", "dog OR beach", "-dog", "indoor:0.5"] {
                let plan = try MatchPlanner(db: db, taxonomy: taxonomy, query: Query(parsing: text))
                    .plan(try Query(parsing: text).expression!)
                let scores = try evaluator.evaluate(plan)
                for threshold in [100, 6000] {
                    let all = try postings.facetCounts(scores, threshold: threshold, top: 20)
                    #expect(try postings.facetCounts(scores, threshold: threshold, top: 20, scanPostingsAbove: 0) == all)
                    #expect(!all.isEmpty)
                    // With a smaller top, the pruned counts still hold the exact top entries.
                    let ranked = all.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                    let pruned = try postings.facetCounts(scores, threshold: threshold, top: 2, scanPostingsAbove: 0)
                    for (label, count) in ranked.prefix(2) { #expect(pruned[label] == count, "\(text) \(threshold)") }
                    for (label, count) in pruned { #expect(all[label] == count) }
                }
            }
        }
    }

    /// SQLite only: the in-memory index and its run lock.
    @Test func inMemoryIndexSearches() throws {
        let index = try SQLiteIndex.inMemory()
        try index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model)
        try index.write(batch: [.classified(ImageClassification(
            path: "/m/a.jpg", size: 1, modificationTime: FixtureIndex.epoch, contentHash: "aa", width: 1, height: 1,
            model: FixtureIndex.model, observations: [LabelConfidence(identifier: "poodle", confidence: 0.7)]))])
        #expect(try index.search("dog -cat").hits.map(\.path) == ["/m/a.jpg"])
        #expect(try index.search("animal").hits.map(\.score) == [0.7])
        let run = try index.beginRun(roots: ["/m"], model: FixtureIndex.model)
        #expect(throws: TagIndexError.anotherRunInProgress(path: ":memory:")) {
            _ = try index.beginRun(roots: ["/m"], model: FixtureIndex.model)
        }
        #expect(try run.finish() == RunSummary(removed: 1))
        #expect(try index.statistics().imageCount == 0)
    }
}
