import Foundation
import ClassifySupport

/// Classifies image files or bytes with a loaded model: decode (JPEG DCT-scaled to what the
/// resize needs), preprocess, run the network, and turn probabilities into observations over the
/// whole taxonomy. Synchronous and `Sendable`: call it from as many tasks as you have cores.
///
/// ```swift
/// let classifier = try ImageClassifier()
/// let result = try classifier.classify(contentsOf: URL(fileURLWithPath: "dog.jpg"))
/// print(result.observations.prefix(3).map(\.identifier))
/// ```
public struct ImageClassifier: Sendable {
    /// The network and its labels.
    public let model: ImageClassifierModel
    /// Decoder settings (pixel limit, file size limit).
    public var decoder: ImageDecoder
    /// Decode JPEGs at 1/2, 1/4 or 1/8 size (in the DCT domain) when that still covers the resize
    /// target. On by default; off decodes every image at full size (slower, for comparison).
    public var decodesAtReducedSize = true
    private let preprocessors = PreprocessorPool()

    /// A classifier over the default model (see `ModelLocator`).
    public init() throws(ModelLoadingError) {
        self.init(model: try .shared())
    }

    /// A classifier over `model`.
    public init(model: ImageClassifierModel) {
        self.model = model
        decoder = ImageDecoder()
    }

    /// Reads, decodes and classifies the file at `url`.
    public func classify(contentsOf url: URL) throws(ClassificationError) -> ClassificationResult {
        try checkModelTakesImages()
        return try classify(decode(contentsOf: url))
    }

    func checkModelTakesImages() throws(ClassificationError) {
        if let problem = model.imageInputProblem { throw ClassificationError(stage: .preprocess, reason: problem) }
    }

    /// Reads and decodes the file at `url` as the classifier would (reduced-size JPEG decoding).
    public func decode(contentsOf url: URL) throws(ClassificationError) -> DecodedImage {
        do { return try decoder.decode(contentsOf: url, minimumShortSide: decodeTarget) } catch {
            throw ClassificationError(error)
        }
    }

    /// Decodes and classifies an in-memory JPEG or PNG.
    public func classify(data: some ContiguousBytes) throws(ClassificationError) -> ClassificationResult {
        try checkModelTakesImages()
        let image: DecodedImage
        do { image = try decoder.decode(data, minimumShortSide: decodeTarget) } catch {
            throw ClassificationError(error)
        }
        return classify(image)
    }

    var decodeTarget: Int? { decodesAtReducedSize ? model.description.input.resizeShortSide : nil }

    /// Classifies already-decoded pixels. The model must take images (`imageInputProblem == nil`).
    public func classify(_ image: DecodedImage) -> ClassificationResult {
        precondition(model.imageInputProblem == nil, model.imageInputProblem ?? "")
        let output = infer(image)
        return ClassificationResult(
            width: image.originalWidth, height: image.originalHeight, format: image.format,
            observations: model.labelSet.observations(probabilities: output.probabilities),
            featurePrint: FeaturePrintObservation(features: output.features),
            dominantColors: DominantColors.extract(from: image), metadata: image.metadata)
    }

    /// The raw network outputs for a decoded image (for calibration and tests).
    package func infer(_ image: DecodedImage) -> InferenceOutput {
        var preprocessor = preprocessors.take()
        defer { preprocessors.give(preprocessor) }
        return model.infer { input in preprocessor.preprocess(image, into: input) }
    }
}

/// Preprocessors keep their resize scratch between images; a few are pooled so concurrent
/// classifications do not share one and steady-state classification does not reallocate.
final class PreprocessorPool: Sendable {
    private let pool = Locked<[Preprocessor]>([])
    func take() -> Preprocessor { pool.withLock { $0.popLast() } ?? Preprocessor() }
    func give(_ preprocessor: Preprocessor) { pool.withLock { if $0.count < 16 { $0.append(preprocessor) } } }
}

/// Everything the classifier learned about one image.
///
/// ```swift
/// let dogs = result.observations.filter { $0.identifier == "dog" && $0.confidence > 0.5 }
/// ```
public struct ClassificationResult: Sendable {
    /// Full-size width and height (after EXIF orientation).
    public var width: Int
    public var height: Int
    /// The detected file format.
    public var format: ImageFormat
    /// Every label of the taxonomy (leaves and parents), highest confidence first.
    public var observations: [ClassificationObservation]
    /// The image's feature print, for similarity search.
    public var featurePrint: FeaturePrintObservation
    /// The image's few dominant colors, heaviest first (see ``DominantColors``), for color search.
    public var dominantColors: [DominantColor] = []
    /// What the file says of itself, read in the same pass as the pixels: date taken, GPS position,
    /// camera and lens (each nil when absent or bogus).
    public var metadata = PhotoMetadata()

    /// A result assembled from parts (for pipelines that run the stages themselves).
    public init(width: Int, height: Int, format: ImageFormat, observations: [ClassificationObservation],
                featurePrint: FeaturePrintObservation, dominantColors: [DominantColor] = [], metadata: PhotoMetadata = PhotoMetadata()) {
        self.width = width
        self.height = height
        self.format = format
        self.observations = observations
        self.featurePrint = featurePrint
        self.dominantColors = dominantColors
        self.metadata = metadata
    }
}
