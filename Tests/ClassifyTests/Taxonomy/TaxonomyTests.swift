import Foundation
import Testing
@testable import Classify
import ClassifyTestSupport

struct TaxonomyTests {
    static let taxonomy: LabelTaxonomy = try! LabelTaxonomy(
        contentsOf: ShippedModel.directory.appending(path: "taxonomy.json"), classCount: 1000)

    @Test func shippedTaxonomyHasTheExpectedGroups() throws {
        let taxonomy = Self.taxonomy
        #expect(taxonomy.labels.filter(\.isLeaf).count == 1000)
        let parents = taxonomy.labels.filter { !$0.isLeaf }
        #expect(parents.count > 200 && parents.count < 800)
        let dog = try #require(taxonomy.label("dog"))
        #expect(taxonomy.classIndices(below: dog.index).count == 118)
        for identifier in ["bird", "cat", "vehicle", "fruit", "musical_instrument", "furniture"] {
            let label = try #require(taxonomy.label(identifier), "missing \(identifier)")
            #expect(taxonomy.classIndices(below: label.index).count >= 2)
        }
        let golden = try #require(taxonomy.label("golden_retriever"))
        #expect(golden.wordNetID == "n02099601")
        #expect(taxonomy.classIndices(below: dog.index).contains(golden.classIndex!))
        // Lookup by synonym, any case, '_' or space.
        #expect(taxonomy.label(named: "Domestic Dog")?.identifier == "dog")
        #expect(taxonomy.label(named: "golden retriever")?.identifier == "golden_retriever")
        // Identifiers are Vision-like.
        #expect(taxonomy.labels.allSatisfy { $0.identifier.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } })
    }

    @Test func parentConfidenceIsTheCappedSumBelowIt() throws {
        let taxonomy = Self.taxonomy
        var probabilities = [Float](repeating: 0, count: 1000)
        let golden = try #require(taxonomy.label("golden_retriever")).classIndex!
        let labrador = try #require(taxonomy.label("labrador_retriever")).classIndex!
        let tabby = try #require(taxonomy.label("tabby")).classIndex!
        probabilities[golden] = 0.5
        probabilities[labrador] = 0.25
        probabilities[tabby] = 0.125
        let confidences = taxonomy.confidences(probabilities: probabilities)
        #expect(confidences[taxonomy.label("dog")!.index] == 0.75)
        #expect(confidences[taxonomy.label("cat")!.index] == 0.125)
        #expect(confidences[taxonomy.label("golden_retriever")!.index] == 0.5)
        let all = taxonomy.confidences(probabilities: [Float](repeating: 0.01, count: 1000))
        #expect(all.allSatisfy { $0 <= 1 })
    }

    /// Observations are ranked by one sort of packed keys; the order must be the plain one:
    /// highest confidence first, equal confidences in label order, on ties, zeros (both signs),
    /// infinities and, last, NaN.
    @Test(arguments: [1, 2, 3]) func rankOrderIsConfidenceThenLabelOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for count in [0, 1, 2, 7, 1843] {
            var confidences = (0..<count).map { _ in Float(Int.random(in: 0...40, using: &random)) / 40 }
            for special in [Float(-0.0), 0, -1.5, .infinity, -.infinity, .nan] where count > 6 {
                confidences[Int.random(in: 0..<count, using: &random)] = special
            }
            let reference = confidences.indices.sorted { a, b in
                let (x, y) = (confidences[a], confidences[b])
                if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? a < b : y.isNaN }
                return x != y ? x > y : a < b
            }
            #expect(LabelSet.rankOrder(confidences) == reference, "seed \(seed), \(count) labels")
        }
    }

    @Test func truthLabelsAreTheLeafAndItsAncestors() throws {
        let taxonomy = Self.taxonomy
        let golden = try #require(taxonomy.label("golden_retriever"))
        let truth = taxonomy.truthLabels(forClass: golden.classIndex!).map { taxonomy.labels[$0].identifier }
        #expect(truth.contains("golden_retriever") && truth.contains("dog"))
        #expect(!truth.contains("cat"))
    }

    @Test func malformedTaxonomiesAreRejected() {
        func label(_ index: Int, _ identifier: String, parents: [String] = [], classIndex: Int? = nil) -> LabelTaxonomy.Label {
            .init(index: index, identifier: identifier, displayName: identifier, wordNetID: nil, synonyms: [], parents: parents, classIndex: classIndex)
        }
        #expect(throws: ModelLoadingError.malformed(file: "taxonomy.json", reason: "identifier 'a' appears twice")) {
            try LabelTaxonomy(labels: [label(0, "a", classIndex: 0), label(1, "a", classIndex: 1)], classCount: 2)
        }
        #expect(throws: ModelLoadingError.malformed(file: "taxonomy.json", reason: "label 'a' names unknown parent 'zzz'")) {
            try LabelTaxonomy(labels: [label(0, "a", parents: ["zzz"], classIndex: 0)], classCount: 1)
        }
        #expect(throws: ModelLoadingError.malformed(file: "taxonomy.json", reason: "class 1 has no label")) {
            try LabelTaxonomy(labels: [label(0, "a", classIndex: 0)], classCount: 2)
        }
        #expect(throws: (any Error).self) {
            try LabelTaxonomy(labels: [label(0, "a", parents: ["p"], classIndex: 0), label(1, "p", parents: ["q"]), label(2, "q", parents: ["p"])], classCount: 1)
        }
    }
}
