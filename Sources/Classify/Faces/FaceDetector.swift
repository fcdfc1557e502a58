import Foundation

/// Finds faces in image files: decodes the upright image (orientation applied, every format the
/// library reads), reduces it to the analysis resolution, runs the model's detector (the MTCNN
/// cascade, or BlazeFace on one letterboxed view) and maps the faces back to pixels of the
/// full-size upright image.
///
/// Usage:
/// ```swift
/// let detector = FaceDetector(model: try FaceDetectorModel.shared())     // MTCNN, the default
/// let result = try detector.detect(contentsOf: url)
/// print(result.width, result.height, result.faces.count)
/// let fast = FaceDetector(model: try FaceDetectorModel.shared(.blazeFace))
/// ```
public struct FaceDetector: Sendable {
    /// The kinds of face detector a `FaceDetectorModel` can hold.
    ///
    /// Usage: `let model = try FaceDetectorModel.shared(.blazeFace)`
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// MTCNN (facenet-pytorch's weights): an image pyramid and a three-network cascade;
        /// finds small faces, costs a few hundred milliseconds per photo.
        case mtcnn
        /// BlazeFace full range (MediaPipe's weights): one 192 x 192 view of the whole photo;
        /// a few milliseconds per photo, faces from about 3% of the photo's short side.
        case blazeFace

        /// The model's directory under `Models/`. Usage: `FaceDetector.Kind.blazeFace.modelName  // "blazeface"`
        public var modelName: String {
            switch self {
            case .mtcnn: "mtcnn"
            case .blazeFace: "blazeface"
            }
        }

        /// The file (relative to the model's directory) whose presence says the directory holds this kind.
        var markerFile: String {
            switch self {
            case .mtcnn: "pnet/model.json"
            case .blazeFace: "full-range/model.json"
            }
        }
    }

    /// The networks. Usage: `detector.model.directory`
    public let model: FaceDetectorModel
    /// The decoder and its limits. Usage: `detector.decoder.maximumPixelCount = 50_000_000`
    public var decoder = ImageDecoder()
    /// The analysis resolution (default: `defaultAnalysisShortSide(for:)` of the model's kind).
    /// MTCNN: the smallest face looked for is the pipeline's minimum face (20 px) in an image of
    /// this shorter side, i.e. 2% of the short side at the default. An image up to
    /// `directAnalysisLimit` times larger (what JPEG and WebP decode to when asked for at least
    /// this size) is read at its own size, with the minimum face scaled to match, so the pyramid
    /// is the same and needs no extra downscale pass; a larger one is first downscaled to this
    /// short side. The default 1000 was chosen by measurement: faces of 40 px pasted into
    /// 4000x3000 photos were all found at 1000 (and at 1500, three times slower), one in ten at
    /// 750 (see docs/faces.md, "Measured"). BlazeFace: the photo is only read at this size
    /// before it is area-averaged into the network's 192 x 192 view.
    /// Usage: `detector.analysisShortSide = 1500`
    public var analysisShortSide: Int
    /// Faces below this confidence are dropped (default: `defaultMinimumConfidence(for:)` of the
    /// model's kind; for MTCNN on top of the cascade's own thresholds 0.6, 0.7, 0.7).
    /// Usage: `detector.minimumConfidence = 0.7   // every face the cascade keeps`
    public var minimumConfidence: Float
    /// BlazeFace only: the parts of the image the network looks at (default:
    /// `defaultViews(for:)` of the model's kind). Usage: `detector.views = .tiled(side: 0.6)`
    public var views: BlazeFaceViews

    /// How much larger than `analysisShortSide` an image may be and still be read at its own
    /// size (memory: the resampling table holds 12 bytes per pixel).
    /// Usage: `FaceDetector.directAnalysisLimit`
    public static let directAnalysisLimit = 1.6

    /// Default for `analysisShortSide` with MTCNN. Usage: `FaceDetector.defaultAnalysisShortSide`
    public static let defaultAnalysisShortSide = 1000
    /// Default for `minimumConfidence` with MTCNN: 0.95, chosen by measurement: on 100 labelled
    /// animal photos, the cascade's own 0.7 gave a face to 10 (one of them a real person), 0.95
    /// to 2 (the real person and one false face), while every 40-px test face scored above 0.95.
    /// Usage: `FaceDetector.defaultMinimumConfidence`
    public static let defaultMinimumConfidence: Float = 0.95

    /// The default `analysisShortSide` of a kind of detector: 1000 for MTCNN (see
    /// `analysisShortSide`); 256 for BlazeFace, whose view of the photo is 192 px on its long
    /// side, so a photo read at a short side of 256 still gives every input pixel at least one
    /// whole source pixel (JPEG and WebP decode that small at a fraction of the full cost).
    ///
    /// Usage: `FaceDetector.defaultAnalysisShortSide(for: .blazeFace)`
    public static func defaultAnalysisShortSide(for kind: Kind) -> Int {
        switch kind {
        case .mtcnn: defaultAnalysisShortSide
        case .blazeFace: 256
        }
    }

    /// The default `minimumConfidence` of a kind of detector: 0.95 for MTCNN (see
    /// `defaultMinimumConfidence`); 0.6 for BlazeFace, MediaPipe's own `min_score_thresh`
    /// (`face_detection_full_range.pbtxt`). Measured (docs/faces.md, "BlazeFace"): on 32 ImageNet
    /// photos with people it finds 12 of the 14 photos MTCNN finds faces in, and no other; on
    /// 100 animal photos it gives 3 false faces (none at 0.7, which loses two weaker real ones).
    ///
    /// Usage: `FaceDetector.defaultMinimumConfidence(for: .blazeFace)`
    public static func defaultMinimumConfidence(for kind: Kind) -> Float {
        switch kind {
        case .mtcnn: defaultMinimumConfidence
        case .blazeFace: 0.6
        }
    }

    /// Usage: `let detector = FaceDetector(model: try FaceDetectorModel.shared())`
    public init(model: FaceDetectorModel) {
        self.model = model
        analysisShortSide = Self.defaultAnalysisShortSide(for: model.kind)
        minimumConfidence = Self.defaultMinimumConfidence(for: model.kind)
        views = Self.defaultViews(for: model.kind)
    }

    /// The default `views` of a kind of detector: the whole image (MTCNN ignores views).
    ///
    /// Usage: `FaceDetector.defaultViews(for: .blazeFace)`
    public static func defaultViews(for kind: Kind) -> BlazeFaceViews {
        .whole
    }

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
        let scaleX = Double(image.originalWidth) / Double(analysed.width)
        let scaleY = Double(image.originalHeight) / Double(analysed.height)
        var faces: [FaceObservation] = []
        func keep(box: PixelRect, landmarks: FaceLandmarks, score: Double) {
            let face = FaceObservation(
                pixelBox: PixelRect(x: box.x * scaleX, y: box.y * scaleY, width: box.width * scaleX, height: box.height * scaleY),
                pixelLandmarks: landmarks.mapPoints { FacePoint(x: $0.x * scaleX, y: $0.y * scaleY) }, confidence: Float(score),
                imageWidth: image.originalWidth, imageHeight: image.originalHeight)
            guard face.confidence >= minimumConfidence, face.pixelBoundingBox.width > 0, face.pixelBoundingBox.height > 0 else { return }
            faces.append(face)
        }
        do {
            switch model.networks {
            case .mtcnn(let networks):
                var pipeline = networks.pipeline
                let analysedShort = min(analysed.width, analysed.height)
                if analysedShort > analysisShortSide { pipeline.minimumFace *= Double(analysedShort) / Double(analysisShortSide) }
                for box in try pipeline.detect(pixels: analysed.pixels, width: analysed.width, height: analysed.height) {
                    let points = (0..<5).map { FacePoint(x: box.landmarks[2 * $0], y: box.landmarks[2 * $0 + 1]) }
                    keep(box: PixelRect(x: box.x1, y: box.y1, width: box.width, height: box.height), landmarks: FaceLandmarks(points: points), score: box.score)
                }
            case .blazeFace(let pipeline):
                let found = try analysed.pixels.withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
                    try pipeline.detect(pixels: pixels, width: analysed.width, height: analysed.height, views: views)
                }
                for face in found where face.keypoints.count == 12 {
                    let point = { (k: Int) in FacePoint(x: face.keypoints[2 * k], y: face.keypoints[2 * k + 1]) }
                    // MediaPipe's keypoints are the subject's right eye, left eye, nose tip, mouth
                    // center, right and left ear tragion: the subject's right is the image's left.
                    let landmarks = FaceLandmarks(leftEye: point(0), rightEye: point(1), nose: point(2), mouth: point(3), leftEar: point(4), rightEar: point(5))
                    keep(box: PixelRect(x: face.xMin, y: face.yMin, width: face.width, height: face.height), landmarks: landmarks, score: face.score)
                }
            }
        } catch {
            throw ClassificationError(stage: .model, reason: error.description)
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
