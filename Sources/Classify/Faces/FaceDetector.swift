import Foundation

/// Finds faces in image files: decodes the upright image (orientation applied, every format the
/// library reads), reduces it to the analysis resolution, runs the MTCNN cascade and maps the
/// faces back to pixels of the full-size upright image.
///
/// Usage:
/// ```swift
/// let detector = FaceDetector(model: try FaceDetectorModel.shared())
/// let result = try detector.detect(contentsOf: url)
/// print(result.width, result.height, result.faces.count)
/// ```
public struct FaceDetector: Sendable {
    /// The three networks. Usage: `detector.model.directory`
    public let model: FaceDetectorModel
    /// The decoder and its limits. Usage: `detector.decoder.maximumPixelCount = 50_000_000`
    public var decoder = ImageDecoder()
    /// The analysis resolution: the smallest face looked for is the pipeline's minimum face
    /// (20 px) in an image of this shorter side, i.e. 2% of the short side at the default. An
    /// image up to `directAnalysisLimit` times larger (what JPEG and WebP decode to when asked
    /// for at least this size) is read at its own size, with the minimum face scaled to match,
    /// so the pyramid is the same and needs no extra downscale pass; a larger one is first
    /// downscaled to this short side. The default 1000 was chosen by measurement: faces of
    /// 40 px pasted into 4000x3000 photos were all found at 1000 (and at 1500, three times
    /// slower), one in ten at 750 (see docs/faces.md, "Measured").
    /// Usage: `detector.analysisShortSide = 1500`
    public var analysisShortSide = FaceDetector.defaultAnalysisShortSide
    /// Faces below this confidence are dropped, on top of the cascade's own thresholds (0.6,
    /// 0.7, 0.7). Usage: `detector.minimumConfidence = 0.7   // every face the cascade keeps`
    public var minimumConfidence: Float = FaceDetector.defaultMinimumConfidence

    /// How much larger than `analysisShortSide` an image may be and still be read at its own
    /// size (memory: the resampling table holds 12 bytes per pixel).
    /// Usage: `FaceDetector.directAnalysisLimit`
    public static let directAnalysisLimit = 1.6

    /// Default for `analysisShortSide`. Usage: `FaceDetector.defaultAnalysisShortSide`
    public static let defaultAnalysisShortSide = 1000
    /// Default for `minimumConfidence`: 0.95, chosen by measurement: on 100 labelled animal
    /// photos, the cascade's own 0.7 gave a face to 10 (one of them a real person), 0.95 to 2
    /// (the real person and one false face), while every 40-px test face scored above 0.95.
    /// Usage: `FaceDetector.defaultMinimumConfidence`
    public static let defaultMinimumConfidence: Float = 0.95

    /// Usage: `let detector = FaceDetector(model: try FaceDetectorModel.shared())`
    public init(model: FaceDetectorModel) { self.model = model }

    /// Faces in the image file at `url`, highest confidence first.
    ///
    /// Usage: `let faces = try detector.detect(contentsOf: url).faces`
    public func detect(contentsOf url: URL) throws(ClassificationError) -> FaceDetectionResult {
        let image: DecodedImage
        do { image = try decoder.decode(contentsOf: url, minimumShortSide: analysisShortSide) } catch { throw ClassificationError(error) }
        return try detect(in: image)
    }

    /// Faces in an in-memory image file.
    ///
    /// Usage: `let faces = try detector.detect(data: bytes).faces`
    public func detect(data: some ContiguousBytes) throws(ClassificationError) -> FaceDetectionResult {
        let image: DecodedImage
        do { image = try decoder.decode(data, minimumShortSide: analysisShortSide) } catch { throw ClassificationError(error) }
        return try detect(in: image)
    }

    /// Faces in decoded pixels; boxes are in pixels of the full-size image
    /// (`originalWidth` x `originalHeight`).
    ///
    /// Usage: `let faces = try detector.detect(in: decodedImage).faces`
    public func detect(in image: DecodedImage) throws(ClassificationError) -> FaceDetectionResult {
        let short = min(image.width, image.height)
        let analysed = Double(short) > Double(analysisShortSide) * Self.directAnalysisLimit
            ? image.downscaled(toFit: Int((Double(max(image.width, image.height)) * Double(analysisShortSide) / Double(short)).rounded()))
            : image
        var pipeline = model.pipeline
        let analysedShort = min(analysed.width, analysed.height)
        if analysedShort > analysisShortSide { pipeline.minimumFace *= Double(analysedShort) / Double(analysisShortSide) }
        let boxes: [FaceBox]
        do { boxes = try pipeline.detect(pixels: analysed.pixels, width: analysed.width, height: analysed.height) } catch {
            throw ClassificationError(stage: .model, reason: error.description)
        }
        let scaleX = Double(image.originalWidth) / Double(analysed.width)
        let scaleY = Double(image.originalHeight) / Double(analysed.height)
        var faces: [FaceObservation] = []
        for box in boxes {
            var points: [FacePoint] = []
            for i in 0..<5 { points.append(FacePoint(x: box.landmarks[2 * i] * scaleX, y: box.landmarks[2 * i + 1] * scaleY)) }
            let pixelBox = PixelRect(x: box.x1 * scaleX, y: box.y1 * scaleY, width: box.width * scaleX, height: box.height * scaleY)
            let face = FaceObservation(
                pixelBox: pixelBox, pixelLandmarks: FaceLandmarks(points: points), confidence: Float(box.score),
                imageWidth: image.originalWidth, imageHeight: image.originalHeight)
            guard face.confidence >= minimumConfidence, face.pixelBoundingBox.width > 0, face.pixelBoundingBox.height > 0 else { continue }
            faces.append(face)
        }
        faces.sort { $0.confidence > $1.confidence }
        return FaceDetectionResult(width: image.originalWidth, height: image.originalHeight, faces: faces)
    }
}

/// The faces of one image and the size of the upright image their pixel boxes refer to.
///
/// Usage: `for face in result.faces { print(face.pixelBoundingBox) }`
public struct FaceDetectionResult: Sendable, Hashable, Codable {
    /// Width of the upright full-size image. Usage: `result.width`
    public var width: Int
    /// Height of the upright full-size image. Usage: `result.height`
    public var height: Int
    /// Highest confidence first. Usage: `result.faces.count`
    public var faces: [FaceObservation]

    /// Usage: `FaceDetectionResult(width: 640, height: 480, faces: [])`
    public init(width: Int, height: Int, faces: [FaceObservation]) {
        self.width = width; self.height = height; self.faces = faces
    }
}
