import Foundation

/// Classifies an image into labels with confidences, shaped like Apple Vision's request of the
/// same name so iOS developers feel at home.
///
/// ```swift
/// let request = ClassifyImageRequest()                         // default model, zero configuration
/// let observations = try await request.perform(on: url)        // highest confidence first
/// for o in observations.prefix(5) { print(o.identifier, o.confidence) }
/// ```
///
/// Observations cover every label of the taxonomy; filter them with
/// `hasMinimumPrecision(_:forRecall:)` / `hasMinimumRecall(_:forPrecision:)` or `ObservationFilter`.
public struct ClassifyImageRequest: Sendable {
    private let modelDirectory: URL?
    /// Largest image (width x height from the header) accepted; larger ones throw before decoding.
    public var maximumPixelCount = 100_000_000

    /// A request on the default model (found by `ModelLocator`; loaded once and shared).
    public init() { modelDirectory = nil }

    /// A request on the model in `modelDirectory`.
    public init(modelDirectory: URL) { self.modelDirectory = modelDirectory }

    /// The labels this request can return.
    public var supportedIdentifiers: [String] {
        get throws { try classifier().model.labelSet.taxonomy.labels.map(\.identifier) }
    }

    /// Classifies the image file at `url`.
    public func perform(on url: URL) async throws -> [ClassificationObservation] {
        try classifier().classify(contentsOf: url).observations
    }

    /// Classifies an in-memory JPEG or PNG.
    public func perform(on data: Data) async throws -> [ClassificationObservation] {
        try classifier().classify(data: data).observations
    }

    private func classifier() throws -> ImageClassifier {
        let model = try modelDirectory.map { try ImageClassifierModel.shared(directory: $0) } ?? ImageClassifierModel.shared()
        var classifier = ImageClassifier(model: model)
        classifier.decoder.maximumPixelCount = maximumPixelCount
        return classifier
    }
}

/// Computes an image's feature print (see `FeaturePrintObservation`), like Vision's
/// `GenerateImageFeaturePrintRequest`.
///
/// ```swift
/// let print = try await GenerateImageFeaturePrintRequest().perform(on: url)
/// ```
public struct GenerateImageFeaturePrintRequest: Sendable {
    private let modelDirectory: URL?

    /// A request on the default model.
    public init() { modelDirectory = nil }
    /// A request on the model in `modelDirectory`.
    public init(modelDirectory: URL) { self.modelDirectory = modelDirectory }

    /// The feature print of the image file at `url`.
    public func perform(on url: URL) async throws -> FeaturePrintObservation {
        let model = try modelDirectory.map { try ImageClassifierModel.shared(directory: $0) } ?? ImageClassifierModel.shared()
        return try ImageClassifier(model: model).classify(contentsOf: url).featurePrint
    }
}

/// An image and its labels as a plain dictionary, for apps that store or send results:
/// the URL and `identifier -> confidence` for the observations a filter keeps.
///
/// ```swift
/// let file = ImageFile(url: url, observations: observations, filter: .highPrecision)
/// print(file.observations["dog"] ?? 0)
/// ```
public struct ImageFile: Sendable, Codable, Hashable {
    public var url: URL
    public var observations: [String: Float]

    public init(url: URL, observations: [String: Float]) {
        self.url = url
        self.observations = observations
    }

    /// Keeps the observations `filter` accepts.
    public init(url: URL, observations: [ClassificationObservation], filter: ObservationFilter) {
        self.url = url
        self.observations = Dictionary(filter.apply(to: observations).map { ($0.identifier, $0.confidence) }, uniquingKeysWith: max)
    }
}
