/// A rectangle in normalized image coordinates (0...1), origin at the lower left like Vision's.
///
/// Usage: `let top = 1 - rect.y - rect.height   // back to a top-left origin`
public struct NormalizedRect: Sendable, Hashable, Codable {
    /// Left edge. Usage: `rect.x`
    public var x: Double
    /// Bottom edge (from the bottom of the image). Usage: `rect.y`
    public var y: Double
    /// Usage: `rect.width * Double(imageWidth)`
    public var width: Double
    /// Usage: `rect.height * Double(imageHeight)`
    public var height: Double

    /// Usage: `NormalizedRect(x: 0.25, y: 0.5, width: 0.2, height: 0.3)`
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A rectangle in pixels of the upright image, origin at the top left.
///
/// Usage: `let right = box.x + box.width`
public struct PixelRect: Sendable, Hashable, Codable {
    /// Left edge. Usage: `box.x`
    public var x: Double
    /// Top edge. Usage: `box.y`
    public var y: Double
    /// Usage: `box.width`
    public var width: Double
    /// Usage: `box.height`
    public var height: Double

    /// Usage: `PixelRect(x: 10, y: 20, width: 64, height: 64)`
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A point: in pixels of the upright image (top-left origin) for `pixelLandmarks`, normalized
/// with a lower-left origin for `landmarks`.
///
/// Usage: `print(point.x, point.y)`
public struct FacePoint: Sendable, Hashable, Codable {
    /// Usage: `point.x`
    public var x: Double
    /// Usage: `point.y`
    public var y: Double

    /// Usage: `FacePoint(x: 0.5, y: 0.5)`
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// The facial landmarks a detector finds. "Left" and "right" are as seen in the image (the left
/// eye is the one nearer the image's left edge). Both detectors find the eyes and the nose; MTCNN
/// also the two corners of the mouth, BlazeFace the mouth's center and the two ear tragions (the
/// cartilage in front of each ear canal, MediaPipe's `RIGHT_EAR_TRAGION`/`LEFT_EAR_TRAGION`).
///
/// Usage: `let eyeDistance = landmarks.rightEye.x - landmarks.leftEye.x`
public struct FaceLandmarks: Sendable, Hashable, Codable {
    /// Usage: `landmarks.leftEye`
    public var leftEye: FacePoint
    /// Usage: `landmarks.rightEye`
    public var rightEye: FacePoint
    /// The nose tip. Usage: `landmarks.nose`
    public var nose: FacePoint
    /// Left corner of the mouth (MTCNN; nil from BlazeFace). Usage: `landmarks.mouthLeft?.y`
    public var mouthLeft: FacePoint?
    /// Right corner of the mouth (MTCNN; nil from BlazeFace). Usage: `landmarks.mouthRight?.y`
    public var mouthRight: FacePoint?
    /// Center of the mouth (BlazeFace; nil from MTCNN). Usage: `landmarks.mouth?.y`
    public var mouth: FacePoint?
    /// The ear tragion nearer the image's left edge (BlazeFace; nil from MTCNN). Usage: `landmarks.leftEar`
    public var leftEar: FacePoint?
    /// The ear tragion nearer the image's right edge (BlazeFace; nil from MTCNN). Usage: `landmarks.rightEar`
    public var rightEar: FacePoint?

    /// The points present, named, in this order: leftEye, rightEye, nose, mouthLeft, mouthRight,
    /// mouth, leftEar, rightEar. Usage: `for (name, point) in landmarks.namedPoints { ... }`
    public var namedPoints: [(name: String, point: FacePoint)] {
        let all: [(String, FacePoint?)] = [
            ("leftEye", leftEye), ("rightEye", rightEye), ("nose", nose), ("mouthLeft", mouthLeft), ("mouthRight", mouthRight),
            ("mouth", mouth), ("leftEar", leftEar), ("rightEar", rightEar),
        ]
        return all.compactMap { name, point in point.map { (name, $0) } }
    }

    /// The points present, in the order of `namedPoints` (MTCNN's five: left eye, right eye,
    /// nose, mouth left, mouth right). Usage: `for point in landmarks.allPoints { ... }`
    public var allPoints: [FacePoint] { namedPoints.map(\.point) }

    /// MTCNN's five points. Usage: `FaceLandmarks(points: fivePoints)` (left eye, right eye, nose, mouth left, mouth right)
    public init(points: [FacePoint]) {
        precondition(points.count == 5, "MTCNN has five landmarks")
        leftEye = points[0]; rightEye = points[1]; nose = points[2]; mouthLeft = points[3]; mouthRight = points[4]
    }

    /// BlazeFace's six points.
    ///
    /// Usage: `FaceLandmarks(leftEye: a, rightEye: b, nose: c, mouth: d, leftEar: e, rightEar: f)`
    public init(leftEye: FacePoint, rightEye: FacePoint, nose: FacePoint, mouth: FacePoint, leftEar: FacePoint, rightEar: FacePoint) {
        self.leftEye = leftEye; self.rightEye = rightEye; self.nose = nose
        self.mouth = mouth; self.leftEar = leftEar; self.rightEar = rightEar
    }

    /// The same landmarks with every point transformed. Usage: `landmarks.mapPoints { FacePoint(x: $0.x / 2, y: $0.y / 2) }`
    public func mapPoints(_ transform: (FacePoint) -> FacePoint) -> FaceLandmarks {
        var result = self
        result.leftEye = transform(leftEye); result.rightEye = transform(rightEye); result.nose = transform(nose)
        result.mouthLeft = mouthLeft.map(transform); result.mouthRight = mouthRight.map(transform); result.mouth = mouth.map(transform)
        result.leftEar = leftEar.map(transform); result.rightEar = rightEar.map(transform)
        return result
    }
}

/// One detected face, shaped like Vision's `VNFaceObservation`: a normalized `boundingBox` with
/// a lower-left origin, a `confidence` and `landmarks`; plus the same box and points in pixels of
/// the upright image (EXIF/HEIF orientation applied) with a top-left origin.
///
/// Usage:
/// ```swift
/// for face in try await DetectFaceRectanglesRequest().perform(on: url) {
///     print(face.confidence, face.pixelBoundingBox)
/// }
/// ```
public struct FaceObservation: Sendable, Hashable, Codable {
    /// Normalized box, lower-left origin, clipped to the image. Usage: `face.boundingBox.width`
    public var boundingBox: NormalizedRect
    /// Face probability, 0...1: MTCNN's last stage (O-Net), or BlazeFace's score. The two
    /// detectors' scales differ (see `FaceDetector.defaultMinimumConfidence(for:)`).
    /// Usage: `if face.confidence > 0.95 { ... }`
    public var confidence: Float
    /// Landmarks, normalized, lower-left origin. Usage: `face.landmarks.nose`
    public var landmarks: FaceLandmarks
    /// The box in pixels of the upright image, top-left origin, clipped to the image.
    /// Usage: `let area = face.pixelBoundingBox.width * face.pixelBoundingBox.height`
    public var pixelBoundingBox: PixelRect
    /// Landmarks in pixels of the upright image, top-left origin. Usage: `face.pixelLandmarks.leftEye.x`
    public var pixelLandmarks: FaceLandmarks

    /// Builds an observation from a pixel box and points of an image of the given size.
    ///
    /// Usage: `FaceObservation(pixelBox: box, pixelLandmarks: points, confidence: 0.99, imageWidth: 640, imageHeight: 480)`
    public init(pixelBox: PixelRect, pixelLandmarks: FaceLandmarks, confidence: Float, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        let x1 = min(max(pixelBox.x, 0), w), y1 = min(max(pixelBox.y, 0), h)
        let x2 = min(max(pixelBox.x + pixelBox.width, 0), w), y2 = min(max(pixelBox.y + pixelBox.height, 0), h)
        pixelBoundingBox = PixelRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
        boundingBox = NormalizedRect(x: x1 / w, y: 1 - y2 / h, width: (x2 - x1) / w, height: (y2 - y1) / h)
        self.confidence = confidence
        self.pixelLandmarks = pixelLandmarks
        landmarks = pixelLandmarks.mapPoints { FacePoint(x: $0.x / w, y: 1 - $0.y / h) }
    }
}
