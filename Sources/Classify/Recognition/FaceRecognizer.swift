import Foundation
import ClassifySupport

/// Who a face is, as numbers: dlib's recognition pipeline put together. For each face a detector
/// found, the five landmarks in its box (``FaceLandmarkModel``), the aligned 150x150 chip
/// (``FaceChip``) and the 128-d descriptor (``FaceDescriptorModel``); two faces are the same
/// person when their descriptors are less than ``FaceDescriptorModel/samePersonDistance`` apart.
///
/// Detectors look at a small picture (BlazeFace at 256 pixels on the short side), where a face
/// is a few pixels wide; a chip cut from there is a blur. ``decodeShortSide(for:width:height:)``
/// says how large a decode gives the smallest face ``minimumFaceSide`` pixels, and
/// ``descriptors(for:width:height:in:)`` cuts the chips from any decode of the same upright
/// photo, scaling the boxes to it. Both models are loaded once, immutable and shared; concurrent calls are fine.
///
/// ```swift
/// let recognizer = try FaceRecognizer.shared()
/// let found = try detector.detect(data: bytes)
/// let descriptors = recognizer.descriptors(for: found, decoding: bytes, with: decoder)   // one per face, nil where no chip
/// ```
public final class FaceRecognizer: Sendable {
    /// The landmark model that places each chip. Usage: `recognizer.landmarks.landmarkCount`
    public let landmarks: FaceLandmarkModel
    /// The network that turns a chip into a descriptor. Usage: `recognizer.network.descriptor(ofChip: chip)`
    public let network: FaceDescriptorModel

    /// Pixels the smallest face's box should span, across, in the picture its chip is cut from:
    /// about what a 150-pixel chip with dlib's 0.25 padding holds of the face, so the chip is not
    /// blown up from fewer pixels. Usage: `FaceRecognizer.minimumFaceSide`
    public static let minimumFaceSide = 100.0
    /// The model directory name under `Models/`. Usage: `FaceRecognizer.modelName`
    public static let modelName = "face-recognition"

    /// Loads the shape predictor and the network from `directory` (`Models/face-recognition`).
    ///
    /// Usage: `let recognizer = try FaceRecognizer(contentsOf: URL(fileURLWithPath: "Models/face-recognition"))`
    public init(contentsOf directory: URL) throws(ModelLoadingError) {
        landmarks = try FaceLandmarkModel(contentsOf: directory)
        network = try FaceDescriptorModel(contentsOf: directory)
    }

    private static let loaded = Locked<FaceRecognizer?>(nil)

    /// The recognizer in `Models/face-recognition` wherever ``ModelLocator`` looks (beside
    /// `CLASSIFY_MODEL_DIR`'s model too), loaded on first use and then shared.
    ///
    /// Usage: `let recognizer = try FaceRecognizer.shared()`
    public static func shared() throws(ModelLoadingError) -> FaceRecognizer {
        if let recognizer = loaded.withLock({ $0 }) { return recognizer }
        let candidates = ModelLocator.siblingCandidateDirectories(modelName: modelName)
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.appending(path: "network/model.json").path) }) else {
            throw .notFound(searched: candidates.map(\.path))
        }
        let recognizer = try FaceRecognizer(contentsOf: found)
        return loaded.withLock { shared in
            if let existing = shared { return existing }
            shared = recognizer
            return recognizer
        }
    }

    /// The short side to decode a `width` x `height` photo at so that the smallest of `boxes`
    /// (pixels of the upright full-size photo) spans ``minimumFaceSide`` pixels, never more than
    /// the photo's own short side; nil when there are no boxes.
    ///
    /// Usage: `let side = recognizer.decodeShortSide(for: found.faces.map(\.pixelBoundingBox), width: found.width, height: found.height)`
    public func decodeShortSide(for boxes: [PixelRect], width: Int, height: Int) -> Int? {
        let shortSide = Double(min(width, height))
        guard shortSide > 0, let smallest = boxes.map({ min($0.width, $0.height) }).min(), smallest > 0 else { return nil }
        return Int(min(shortSide, (shortSide * Self.minimumFaceSide / smallest).rounded(.up)))
    }

    /// One descriptor per box (nil where no chip could be cut), the boxes in pixels of the
    /// upright full-size `width` x `height` photo, the chips cut from `image`: any decode of that
    /// photo (the boxes are scaled to its size).
    ///
    /// Usage: `let descriptors = recognizer.descriptors(for: boxes, width: 4032, height: 3024, in: image)`
    public func descriptors(for boxes: [PixelRect], width: Int, height: Int, in image: DecodedImage) -> [[Float]?] {
        guard width > 0, height > 0 else { return boxes.map { _ in nil } }
        let scaleX = Double(image.width) / Double(width), scaleY = Double(image.height) / Double(height)
        return boxes.map { box in
            descriptor(for: PixelRect(x: box.x * scaleX, y: box.y * scaleY, width: box.width * scaleX, height: box.height * scaleY), in: image)
        }
    }

    /// The descriptor of the face in `box` (pixels of `image`); nil when no chip can be cut.
    private func descriptor(for box: PixelRect, in image: DecodedImage) -> [Float]? {
        guard box.width >= 1, box.height >= 1 else { return nil }
        let points = landmarks.landmarks(in: image, box: box)
        return FaceChip.extract(from: image, landmarks: points).flatMap(network.descriptor(ofChip:))
    }

    /// Decodes the part of `bytes` around `boxes` (pixels of the upright full-size `width` x
    /// `height` photo) as large as ``decodeShortSide(for:width:height:)`` asks, and describes
    /// those faces; [] when there are none, nils when the photo cannot be decoded again. Only
    /// ``regionAround(_:width:height:)`` is decoded: for a JPEG that is the difference between a
    /// small part and a whole 12-megapixel photo.
    ///
    /// Usage: `let descriptors = recognizer.descriptors(for: boxes, width: w, height: h, decoding: bytes, with: decoder)`
    public func descriptors(for boxes: [PixelRect], width: Int, height: Int, decoding bytes: [UInt8], with decoder: ImageDecoder) -> [[Float]?] {
        guard let side = decodeShortSide(for: boxes, width: width, height: height) else { return [] }
        let region = Self.regionAround(boxes, width: width, height: height)
        guard let part = try? decoder.decode(bytes, minimumShortSide: side, region: region) else { return boxes.map { _ in nil } }
        return boxes.map { descriptor(for: part.imageRect(of: $0), in: part.image) }
    }

    /// The part of a `width` x `height` photo that describing the faces in `boxes` reads: every
    /// box grown by its own size on each side (the chip's padding and the landmark model's
    /// samples stay well inside), together, clipped to the photo.
    ///
    /// Usage: `let region = FaceRecognizer.regionAround(boxes, width: 4000, height: 3000)`
    public static func regionAround(_ boxes: [PixelRect], width: Int, height: Int) -> PixelRect {
        var (left, top, right, bottom) = (Double(width), Double(height), 0.0, 0.0)
        for box in boxes {
            left = min(left, box.x - box.width)
            top = min(top, box.y - box.height)
            right = max(right, box.x + 2 * box.width)
            bottom = max(bottom, box.y + 2 * box.height)
        }
        left = max(0, left); top = max(0, top)
        right = min(Double(width), right); bottom = min(Double(height), bottom)
        guard right > left, bottom > top else { return PixelRect(x: 0, y: 0, width: Double(width), height: Double(height)) }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// ``descriptors(for:width:height:decoding:with:)`` for what a detector found, in its order.
    ///
    /// Usage: `let descriptors = recognizer.descriptors(for: found, decoding: bytes, with: decoder)`
    public func descriptors(for found: FaceDetectionResult, decoding bytes: [UInt8], with decoder: ImageDecoder) -> [[Float]?] {
        descriptors(for: found.faces.map(\.pixelBoundingBox), width: found.width, height: found.height, decoding: bytes, with: decoder)
    }
}
