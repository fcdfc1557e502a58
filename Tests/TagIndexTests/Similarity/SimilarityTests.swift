import CClassifyKernels
import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Synthetic feature prints: non-negative random "photos" and slightly perturbed copies of them,
/// like the pooled (post-ReLU6) features of a resized or recompressed image.
struct SyntheticPrints {
    var state: UInt64

    mutating func unit() -> Float {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(state >> 40) / Float(1 << 24)
    }

    /// A sparse non-negative vector, as pooled ReLU features are.
    mutating func photo() -> [Float] {
        (0..<FeaturePrint.dimension).map { _ in
            let value = unit()
            return value < 0.6 ? 0 : value * 3
        }
    }

    /// `base` with relative noise of about `amount` per value.
    mutating func variant(of base: [Float], amount: Float) -> [Float] {
        base.map { max(0, $0 * (1 + (unit() - 0.5) * 2 * amount) + (unit() < 0.02 ? amount : 0)) }
    }
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0, na: Float = 0, nb: Float = 0
    for index in a.indices { dot += a[index] * b[index]; na += a[index] * a[index]; nb += b[index] * b[index] }
    return dot / (na.squareRoot() * nb.squareRoot())
}

/// Similar images on both backends (``BackendIndex``). SQLite-only: near-duplicate groups and pairs
/// (`duplicateGroups`, `similarPairs`: not in `PostgresIndex` yet) and the kernels and helpers.
@Suite struct SimilarityTests {
    /// A FixtureIndex taxonomy and images with prints: three families of near copies, plus
    /// distinct photos.
    struct Library {
        let fixture: FixtureIndex
        var index: SQLiteIndex { fixture.index }
        var prints: [String: [Float]] = [:]

        init(distinct: Int = 6) throws {
            fixture = try FixtureIndex()
            var random = SyntheticPrints(state: 7)
            var entries: [IndexEntry] = []
            func add(_ path: String, _ print: [Float], width: Int, labels: [(String, Double)], prints: inout [String: [Float]]) {
                prints[path] = print
                entries.append(.classified(ImageClassification(
                    path: path, size: Int64(width * 100), modificationTime: FixtureIndex.epoch,
                    contentHash: path, width: width, height: width * 3 / 4, model: FixtureIndex.model,
                    observations: labels.map { LabelConfidence(identifier: $0.0, confidence: $0.1) },
                    featurePrint: print)))
            }
            var prints: [String: [Float]] = [:]
            for family in 0..<3 {
                let base = random.photo()
                let labels: [(String, Double)] = family == 0 ? [("golden_retriever", 0.9), ("dog", 0.9)] : [("beach", 0.8)]
                add("/sim/f\(family)/original.jpg", base, width: 4000, labels: labels, prints: &prints)
                add("/sim/f\(family)/small.jpg", random.variant(of: base, amount: 0.1), width: 1000, labels: labels, prints: &prints)
                add("/sim/other/f\(family)-copy.jpg", random.variant(of: base, amount: 0.15), width: 2000, labels: labels, prints: &prints)
            }
            for number in 0..<distinct {
                add("/sim/distinct/\(number).jpg", random.photo(), width: 800, labels: [("tabby", 0.7)], prints: &prints)
            }
            try fixture.index.write(batch: entries)
            self.prints = prints
        }

        /// This library read through `backend`.
        func on(_ backend: Backend) async throws -> BackendIndex {
            try await BackendIndex.make(backend, copying: fixture)
        }
    }

    @Test(arguments: Backend.allCases) func nearestNeighboursAreTheCopies(backend: Backend) async throws {
        let library = try Library()
        let index = try await library.on(backend)
        let page = try await index.similar(toPath: "/sim/f1/original.jpg")
        #expect(page.hits.count == 14)  // every print but itself: 3 families of 3 and 6 distinct (fixture images have none)
        #expect(Set(page.hits.prefix(2).map(\.path)) == ["/sim/f1/small.jpg", "/sim/other/f1-copy.jpg"])
        #expect(page.hits[0].score > 0.95)
        #expect(page.hits[2].score < 0.8)
        #expect(!page.hits.contains { $0.path == "/sim/f1/original.jpg" })
        #expect(zip(page.hits, page.hits.dropFirst()).allSatisfy { $0.score >= $1.score })
        // Scores are the cosine of the stored prints, within fp16 error.
        let expected = cosine(library.prints["/sim/f1/original.jpg"]!, library.prints[page.hits[0].path]!)
        #expect(abs(page.hits[0].score - Double(expected)) < 2e-3)
    }

    @Test(arguments: Backend.allCases) func minimumScoreLimitAndPage(backend: Backend) async throws {
        let index = try await Library().on(backend)
        let strict = try await index.similar(toPath: "/sim/f0/small.jpg", minimumScore: 0.9)
        #expect(strict.totalCount == 2)
        #expect(Set(strict.hits.map(\.path)) == ["/sim/f0/original.jpg", "/sim/other/f0-copy.jpg"])
        var query = Query()
        query.limit = 3
        query.page = 2
        let all = try await index.similar(toPath: "/sim/f0/small.jpg", query: Query())
        let second = try await index.similar(toPath: "/sim/f0/small.jpg", query: query)
        #expect(second.totalCount == all.totalCount)
        #expect(second.hits.map(\.path) == all.hits[3..<6].map(\.path))
        #expect(second.pageCount == (all.totalCount + 2) / 3)
        query.page = 100
        let beyond = try await index.similar(toPath: "/sim/f0/small.jpg", query: query)
        #expect(beyond.hits.isEmpty && beyond.totalCount == all.totalCount)
        query.page = 0
        await #expect(throws: TagIndexError.self) { try await index.similar(toPath: "/sim/f0/small.jpg", query: query) }
    }

    /// `untagged` under a calibrated filter means the same images to a similar-images search as
    /// to a label search (no label reaches its calibrated threshold), not "no confidence above
    /// the global threshold".
    @Test(arguments: Backend.allCases) func calibratedUntaggedIsTheSearchesUntagged(backend: Backend) async throws {
        let library = try Library()
        let index = try await library.on(backend)
        var plain = try Query(parsing: "untagged")
        plain.limit = 100
        let plainPaths = Set(try await index.search(plain).hits.map(\.path))
        var differs = false
        for calibration in [CalibratedFilter.highPrecision, .highRecall] {
            var query = plain
            query.calibration = calibration
            let untagged = Set(try await index.search(query).hits.map(\.path)).filter { library.prints[$0] != nil }
            differs = differs || untagged != plainPaths.filter { library.prints[$0] != nil }
            let probe = "/sim/f1/original.jpg"
            let similar = Set(try await index.similar(toPath: probe, query: query).hits.map(\.path))
            #expect(similar == untagged.subtracting([probe]), "\(calibration)")
        }
        #expect(differs, "the fixture has images that only a calibrated filter calls untagged (or the reverse)")
    }

    @Test(arguments: Backend.allCases) func combinesWithLabelQueriesAndFilters(backend: Backend) async throws {
        let library = try Library()
        let index = try await library.on(backend)
        // Only beach images: family 0 (dogs) and the tabbies are out.
        let beach = try await index.similar(toPath: "/sim/f0/original.jpg", query: Query(parsing: "beach"))
        #expect(!beach.hits.isEmpty)
        #expect(beach.hits.allSatisfy { $0.path.hasPrefix("/sim/f1/") || $0.path.hasPrefix("/sim/f2/") || $0.path.hasPrefix("/sim/other/f1") || $0.path.hasPrefix("/sim/other/f2") })
        let dogs = try await index.similar(toPath: "/sim/f0/original.jpg", query: Query(parsing: "dog under:/sim/other"))
        #expect(dogs.hits.map(\.path) == ["/sim/other/f0-copy.jpg"])
        let none = try await index.similar(toPath: "/sim/f0/original.jpg", query: Query(parsing: "poodle"))
        #expect(none.totalCount == 0 && none.hits.isEmpty)
        // A print classified on the fly: the file itself need not be indexed.
        let probe = library.prints["/sim/f2/small.jpg"]!
        let byPrint = try await index.similar(to: probe, query: Query(parsing: "under:/sim/f2"))
        #expect(byPrint.hits.map(\.path) == ["/sim/f2/small.jpg", "/sim/f2/original.jpg"])
        #expect(byPrint.hits[0].score > 0.999)
        let excluded = try await index.similar(to: probe, query: Query(parsing: "under:/sim/f2"), excludingPath: "/sim/f2/small.jpg")
        #expect(excluded.hits.map(\.path) == ["/sim/f2/original.jpg"])
        // Terms and filters with a threshold: only beach copies above 0.9.
        let close = try await index.similar(toPath: "/sim/f1/original.jpg", query: Query(parsing: "beach -dog"), minimumScore: 0.9)
        #expect(Set(close.hits.map(\.path)) == ["/sim/f1/small.jpg", "/sim/other/f1-copy.jpg"])
        await #expect(throws: TagIndexError.self) { try await index.similar(toPath: "/lib/a/golden1.jpg") }
        await #expect(throws: TagIndexError.self) { try await index.similar(toPath: "/not/indexed.jpg") }
        await #expect(throws: TagIndexError.self) { try await index.similar(to: [1, 2, 3]) }
    }

    /// SQLite only (`duplicateGroups`, `similarPairs`).
    @Test func duplicateGroupsAreTheFamilies() throws {
        let library = try Library()
        let groups = try library.index.duplicateGroups(threshold: 0.9)
        #expect(groups.count == 3)
        for group in groups {
            #expect(group.members.count == 3)
            #expect(group.keeper.path.hasSuffix("/original.jpg"))
            #expect(group.keeper.width == 4000 && group.keeper.score == 1)
            let family = group.keeper.path.split(separator: "/")[1]
            #expect(Set(group.members.map(\.path)) == ["/sim/\(family)/original.jpg", "/sim/\(family)/small.jpg", "/sim/other/\(family)-copy.jpg"])
            #expect(group.members.dropFirst().allSatisfy { $0.score > 0.9 && $0.score < 1 })
        }
        #expect(try library.index.duplicateGroups(threshold: 0.999).isEmpty)
        let scoped = try library.index.duplicateGroups(threshold: 0.9, query: Query(parsing: "under:/sim/f1"))
        #expect(scoped.map { $0.members.map(\.path).sorted() } == [["/sim/f1/original.jpg", "/sim/f1/small.jpg"]])
        let pairs = try library.index.similarPairs(minimumScore: 0.9)
        #expect(pairs.count == 9)
        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    /// a ~ b ~ c ~ d at 0.7 while a and c share nothing: the group of any of them is all four,
    /// as the all-pairs groups say, and a distinct photo has none.
    @Test(arguments: Backend.allCases) func aPhotosGroupFollowsTheWholeChain(backend: Backend) async throws {
        let fixture = try FixtureIndex()
        let dimension = FeaturePrint.dimension
        let left = (0..<dimension).map { $0 < dimension / 2 ? Float(1 + $0 % 3) : 0 }
        let right = (0..<dimension).map { $0 >= dimension / 2 ? Float(1 + $0 % 3) : 0 }
        var random = SyntheticPrints(state: 11)
        let chain: [(String, [Float], Int)] = [
            ("/chain/a.jpg", left, 1000), ("/chain/b.jpg", zip(left, right).map { $0 + $1 }, 3000),
            ("/chain/c.jpg", right, 2000), ("/chain/d.jpg", random.variant(of: right, amount: 0.05), 500),
        ]
        let distinct = (0..<4).map { ("/other/\($0).jpg", random.photo(), 800) }
        try fixture.index.write(batch: (chain + distinct).map { path, print, width in
            .classified(ImageClassification(
                path: path, size: Int64(width), modificationTime: FixtureIndex.epoch, contentHash: path, width: width,
                height: width, model: FixtureIndex.model, observations: [], featurePrint: print))
        })
        #expect(cosine(left, right) == 0)
        let index = try await BackendIndex.make(backend, copying: fixture).reader
        let all = try await index.duplicateGroups(threshold: 0.7, query: Query())
        #expect(all.count == 1)
        for (path, _, _) in chain {
            let group = try #require(try await index.duplicateGroup(containingPath: path, threshold: 0.7, maximumMembers: 200, knownNeighbours: nil))
            #expect(group.isComplete)
            #expect(group.members.map(\.path) == all[0].members.map(\.path), "\(path)")
            #expect(group.keeper.path == "/chain/b.jpg")
            #expect(zip(group.members, all[0].members).allSatisfy { abs($0.score - $1.score) < 1e-3 })
        }
        // The neighbours a `similar` page already found save the first scan and change nothing.
        let neighbours = try await index.similar(toPath: "/chain/a.jpg", query: Query(), minimumScore: 0.7).hits.map(\.imageID)
        #expect(neighbours.count == 1)
        let seeded = try await index.duplicateGroup(containingPath: "/chain/a.jpg", threshold: 0.7, maximumMembers: 200, knownNeighbours: neighbours)
        #expect(seeded?.members.map(\.path) == all[0].members.map(\.path))
        let cut = try #require(try await index.duplicateGroup(containingPath: "/chain/a.jpg", threshold: 0.7, maximumMembers: 2, knownNeighbours: nil))
        #expect(!cut.isComplete && cut.members.count == 2)
        #expect(try await index.duplicateGroup(containingPath: "/other/0.jpg", threshold: 0.7, maximumMembers: 200, knownNeighbours: nil) == nil)
        #expect(try await index.duplicateGroup(containingPath: "/not/indexed.jpg", threshold: 0.8, maximumMembers: 200, knownNeighbours: nil) == nil)
    }

    /// More prints than one block holds, and few candidates among them.
    @Test(arguments: Backend.allCases) func scansCrossBlockBoundariesAndProbeCandidates(backend: Backend) async throws {
        let (directory, written, target) = try Self.bigLibrary()
        let index = try await BackendIndex.make(backend, copying: written, in: directory)
        let page = try await index.similar(to: target)
        #expect(page.totalCount == 2_100)
        #expect(page.hits.first?.path == "/big/1500.jpg")
        #expect(page.hits.count == 50)
        // 7 poodles among 2,100 images: answered by probing each candidate (on SQLite).
        let poodles = try await index.similar(to: target, query: Query(parsing: "poodle"))
        #expect(poodles.totalCount == 7)
        #expect(poodles.hits.first?.path == "/big/1500.jpg")
        // The last page, past a block boundary.
        var last = Query()
        last.limit = 1000
        last.page = 3
        let tail = try await index.similar(to: target, query: last)
        #expect(tail.hits.count == 100 && tail.totalCount == 2_100)
    }

    /// PostgreSQL scores most prints from their sketches: on 2,100 random prints, whose scores lie
    /// close together, its pages, scores and totals equal SQLite's full scan at floors below,
    /// among and above the scores, on several pages, and with a label narrowing the candidates.
    @Test func sketchedPagesEqualTheFullScan() async throws {
        let (directory, written, target) = try Self.bigLibrary()
        let postgres = try await BackendIndex.make(.postgresql, copying: written, in: directory)
        for floor in [0, 0.35, 0.4, 0.9] {
            for (limit, page) in [(7, 1), (7, 3), (50, 2), (1, 1)] {
                for text in ["", "poodle", "-poodle"] {
                    var query = try Query(parsing: text)
                    query.limit = limit
                    query.page = page
                    let expected = try written.similar(to: target, query: query, minimumScore: floor, excludingPath: "/big/1500.jpg")
                    let actual = try await postgres.similar(to: target, query: query, minimumScore: floor, excludingPath: "/big/1500.jpg")
                    #expect(actual == expected, "floor \(floor), limit \(limit), page \(page), '\(text)'")
                }
            }
        }
    }

    /// SQLite only (`duplicateGroups`): no near duplicates among 2,100 random prints.
    @Test func noDuplicatesAmongDistinctPrints() throws {
        let (directory, index, _) = try Self.bigLibrary()
        _ = directory
        #expect(try index.duplicateGroups(threshold: 0.95).isEmpty)
    }

    /// 2,100 random prints (a poodle every 300th) and the print of /big/1500.jpg.
    static func bigLibrary() throws -> (TemporaryDirectory, SQLiteIndex, [Float]) {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model)
        var random = SyntheticPrints(state: 99)
        var entries: [IndexEntry] = []
        var target: [Float] = []
        for number in 0..<2_100 {
            let print = random.photo()
            if number == 1_500 { target = print }
            entries.append(.classified(ImageClassification(
                path: "/big/\(number).jpg", size: 1, modificationTime: FixtureIndex.epoch, contentHash: "\(number)",
                width: 10, height: 10, model: FixtureIndex.model,
                observations: number % 300 == 0 ? [LabelConfidence(identifier: "poodle", confidence: 0.9)] : [],
                featurePrint: print)))
        }
        try index.write(batch: entries)
        return (directory, index, target)
    }

    @Test func halfDotKernelsAgreeWithFloatArithmetic() throws {
        var random = SyntheticPrints(state: 3)
        let dimension = FeaturePrint.dimension
        let queries = (0..<5).flatMap { _ in (0..<dimension).map { _ in random.unit() - 0.5 } }
        let rowVectors = (0..<3).map { _ in (0..<dimension).map { _ in (random.unit() - 0.5) * 0.2 } }
        let halves = rowVectors.flatMap { $0.map(FeaturePrint.halfBits) }
        // The vector path (the best this CPU has) and the scalar one, on this thread only.
        for level in [Int32(CLS_LEVEL_AVX512), Int32(CLS_LEVEL_PORTABLE)] {
            let outer = cls_kernels_set_thread_level(level)
            defer { cls_kernels_set_thread_level(outer) }
            var out = [Float](repeating: 0, count: 15)
            PrintBlocks.dot(queries: queries, queryCount: 5, rows: halves, count: 3, into: &out)
            for q in 0..<5 {
                for r in 0..<3 {
                    var expected: Float = 0
                    for k in 0..<dimension {
                        expected += queries[q * dimension + k] * FeaturePrint.float(fromHalfBits: halves[r * dimension + k])
                    }
                    #expect(abs(out[q * 3 + r] - expected) < 1e-4, "level \(level) q\(q) r\(r)")
                }
            }
        }
    }

    @Test func unionFindAndTopScores() {
        var sets = UnionFind(count: 6)
        sets.union(0, 1); sets.union(3, 4); sets.union(1, 4)
        #expect(sets.find(0) == sets.find(3))
        #expect(sets.find(2) != sets.find(0))
        #expect(sets.find(5) == 5)
        var top = TopScores(capacity: 3)
        for (score, id) in [(0.5, 1), (0.9, 2), (0.1, 3), (0.7, 4), (0.9, 5), (0.3, 6)] as [(Float, Int64)] {
            top.insert(score: score, id: id)
        }
        #expect(top.sortedDescending().map(\.id) == [5, 2, 4])
        #expect(SimilarityScore.score(cosine: -0.3) == 0)
        #expect(SimilarityScore.score(cosine: 0.42) == 0.42)
    }
}
