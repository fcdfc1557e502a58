import Foundation
import Testing
@testable import Classify

/// Whole pipeline on real photos: the license-clean ones committed with the tests, and the
/// labelled ImageNet photos in ../shared when they are there.
struct RealPhotoTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fixtures/photos")
    static let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appending(path: "shared/data/imagenet-calib")

    let classifier = ImageClassifier(model: ShippedModel.model)

    func confidence(_ identifier: String, in observations: [ClassificationObservation]) -> Float {
        observations.first { $0.identifier == identifier }?.confidence ?? 0
    }

    @Test func catPhotoIsACat() throws {
        let result = try classifier.classify(contentsOf: Self.photos.appending(path: "cat-chelsea.jpg"))
        #expect(result.width == 385 && result.height == 256 && result.format == .jpeg)
        #expect(confidence("cat", in: result.observations) > 0.9)
        #expect(confidence("animal", in: result.observations) > 0.9)
        #expect(confidence("dog", in: result.observations) < 0.05)
        // Sorted by confidence, parents and leaves together.
        #expect(zip(result.observations, result.observations.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
        #expect(result.observations.count == ShippedModel.model.labelSet.taxonomy.labels.count)
        #expect(result.featurePrint.elementCount == 1280)
        #expect(abs(result.featurePrint.values.reduce(0) { $0 + $1 * $1 } - 1) < 1e-4)
    }

    @Test func coffeeCupIsEspresso() throws {
        let result = try classifier.classify(contentsOf: Self.photos.appending(path: "coffee-cup.jpg"))
        #expect(result.observations.first { $0.isLeaf }?.identifier == "espresso")
        #expect(confidence("beverage", in: result.observations) > 0.5)
    }

    @Test func filtersKeepDifferentSensibleSets() throws {
        let result = try classifier.classify(contentsOf: Self.photos.appending(path: "rocket.jpg"))
        let recall = Set(ObservationFilter.highRecall.apply(to: result.observations).map(\.identifier))
        let precision = Set(ObservationFilter.highPrecision.apply(to: result.observations).map(\.identifier))
        #expect(ShippedModel.model.labelSet.calibration != nil)
        #expect(precision.isSubset(of: recall))
        #expect(recall.count > precision.count)
        let cat = try classifier.classify(contentsOf: Self.photos.appending(path: "cat-chelsea.jpg"))
        let catKept = Set(ObservationFilter.highPrecision.apply(to: cat.observations).map(\.identifier))
        #expect(catKept.isSuperset(of: ["cat", "animal", "mammal", "domestic_cat"]))
        #expect(!catKept.contains("dog"))
        let file = ImageFile(url: Self.photos.appending(path: "cat-chelsea.jpg"), observations: cat.observations, filter: .highPrecision)
        #expect(Set(file.observations.keys) == catKept)
        #expect(file.observations["cat"] == confidence("cat", in: cat.observations))
    }

    @Test func requestAPIClassifiesFilesAndData() async throws {
        let url = Self.photos.appending(path: "cat-chelsea.jpg")
        let request = ClassifyImageRequest(modelDirectory: ShippedModel.directory)
        let fromFile = try await request.perform(on: url)
        let fromData = try await request.perform(on: Data(contentsOf: url))
        #expect(fromFile.first?.identifier == fromData.first?.identifier)
        #expect(fromFile.prefix(5).contains { $0.identifier == "cat" })
        let print = try await GenerateImageFeaturePrintRequest(modelDirectory: ShippedModel.directory).perform(on: url)
        #expect(try print.distance(to: print) == 0)
        let other = try await GenerateImageFeaturePrintRequest(modelDirectory: ShippedModel.directory).perform(on: Self.photos.appending(path: "rocket.jpg"))
        #expect(try print.distance(to: other) > 0.5)
        await #expect(throws: ClassificationError.self) { try await request.perform(on: Data("not an image".utf8)) }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: shared.path), "needs ../shared/data/imagenet-calib; skipped when it is absent"))
    func dogPhotoIsADogAndItsBreed() throws {
        let url = Self.shared.appending(path: "n02099601_golden_retriever.JPEG")
        let photo = FileManager.default.fileExists(atPath: url.path) ? url : Self.shared.appending(path: "n02090379_redbone.JPEG")
        let breed = photo.lastPathComponent.hasPrefix("n02099601") ? "golden_retriever" : "redbone"
        let result = try classifier.classify(contentsOf: photo)
        #expect(confidence("dog", in: result.observations) > 0.8)
        #expect(result.observations.filter(\.isLeaf).prefix(3).contains { $0.identifier == breed })
        let kept = ObservationFilter.highRecall.apply(to: result.observations).map(\.identifier)
        #expect(kept.contains("dog") && kept.contains(breed))
    }
}
