import CClassifyCodecs
import Foundation

/// A part of a photo, decoded: what ``ImageDecoder/decode(_:minimumShortSide:region:)`` returns.
///
/// `image` holds the upright pixels of a rectangle of the photo decoded at the same scale a
/// whole decode with the same `minimumShortSide` would use (its `originalWidth`, `originalHeight`
/// and `decodeScale` are the whole photo's); ``imageRect(of:)`` puts a box given in pixels of the
/// upright full-size photo into `image`'s pixels.
///
/// ```swift
/// let part = try decoder.decode(bytes, minimumShortSide: 1200, region: faceBox)
/// let box = part.imageRect(of: faceBox)   // the face in part.image's pixels
/// ```
public struct DecodedRegion: Sendable {
    /// The region's upright pixels. Usage: `let chip = FaceChip.extract(from: part.image, landmarks: points)`
    public let image: DecodedImage
    /// Where `image` lies in the whole upright photo decoded at the same scale.
    let crop: ImageCrop

    init(image: DecodedImage, crop: ImageCrop) {
        self.image = image
        self.crop = crop
    }

    /// `box` (pixels of the upright full-size photo) in pixels of `image`: scaled as a whole
    /// decode at this scale would scale it, then moved by where the region starts.
    ///
    /// Usage: `let inRegion = part.imageRect(of: face.pixelBoundingBox)`
    public func imageRect(of box: PixelRect) -> PixelRect {
        let scaleX = Double(crop.wholeWidth) / Double(image.originalWidth)
        let scaleY = Double(crop.wholeHeight) / Double(image.originalHeight)
        return PixelRect(
            x: box.x * scaleX - Double(crop.x), y: box.y * scaleY - Double(crop.y),
            width: box.width * scaleX, height: box.height * scaleY)
    }
}

/// A whole-pixel rectangle of an image that is `wholeWidth` x `wholeHeight`, in either the stored
/// or the upright orientation: how a region request travels from the caller (upright, full size)
/// to a codec (stored, scaled) and back.
struct ImageCrop: Sendable, Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var wholeWidth: Int
    var wholeHeight: Int

    /// The whole-pixel rectangle of an upright `wholeWidth` x `wholeHeight` decode that covers
    /// `region`, given in pixels of the upright `fullWidth` x `fullHeight` photo (clipped to it;
    /// at least one pixel).
    static func covering(_ region: PixelRect, fullWidth: Int, fullHeight: Int, wholeWidth: Int, wholeHeight: Int) -> ImageCrop {
        let scaleX = Double(wholeWidth) / Double(max(1, fullWidth)), scaleY = Double(wholeHeight) / Double(max(1, fullHeight))
        func span(_ start: Double, _ length: Double, _ scale: Double, _ limit: Int) -> (Int, Int) {
            let first = min(max(0, Int((start * scale).rounded(.down))), limit - 1)
            let end = min(max(first + 1, Int(((start + max(0, length)) * scale).rounded(.up))), limit)
            return (first, end - first)
        }
        let (x, width) = span(region.x.isFinite ? region.x : 0, region.width.isFinite ? region.width : 0, scaleX, wholeWidth)
        let (y, height) = span(region.y.isFinite ? region.y : 0, region.height.isFinite ? region.height : 0, scaleY, wholeHeight)
        return ImageCrop(x: x, y: y, width: width, height: height, wholeWidth: wholeWidth, wholeHeight: wholeHeight)
    }

    /// The rectangles of a decode that cover `region` (pixels of the upright full-size photo):
    /// upright, and stored (what the codec cuts), for a `fullWidth` x `fullHeight` stored picture
    /// decoded at `outputWidth` x `outputHeight` and turned upright by `orientation`.
    static func forRegion(
        _ region: PixelRect, fullWidth: Int, fullHeight: Int, outputWidth: Int, outputHeight: Int, orientation: ImageOrientation
    ) -> (upright: ImageCrop, stored: ImageCrop) {
        let swaps = orientation.swapsDimensions
        let upright = covering(
            region, fullWidth: swaps ? fullHeight : fullWidth, fullHeight: swaps ? fullWidth : fullHeight,
            wholeWidth: swaps ? outputHeight : outputWidth, wholeHeight: swaps ? outputWidth : outputHeight)
        return (upright, upright.stored(undoing: orientation))
    }

    /// Asks a codec to decode only what covers `region` (see ``forRegion``): `cut` gets the stored
    /// rectangle and answers with the codec's status; the upright rectangle comes back, or the
    /// codec's refusal as the error a decode would throw (`fullWidth` x `fullHeight` stored, `limit` pixels).
    static func cutting(
        _ region: PixelRect, fullWidth: UInt32, fullHeight: UInt32, outputWidth: UInt32, outputHeight: UInt32,
        orientation: ImageOrientation, limit: Int, _ cut: (ImageCrop, inout cls_message) -> cls_status
    ) throws(ImageDecodingError) -> ImageCrop {
        let (upright, stored) = forRegion(
            region, fullWidth: Int(fullWidth), fullHeight: Int(fullHeight), outputWidth: Int(outputWidth), outputHeight: Int(outputHeight),
            orientation: orientation)
        var message = cls_message()
        let status = cut(stored, &message)
        guard status == CLS_OK else { throw ImageDecodingError(status: status, message: message, width: fullWidth, height: fullHeight, limit: limit) }
        return upright
    }

    /// The rectangle as the C decoders take it.
    var outputCrop: cls_output_crop {
        cls_output_crop(x: UInt32(x), y: UInt32(y), width: UInt32(width), height: UInt32(height))
    }

    /// This upright rectangle in the stored image that `orientation` turns upright (the inverse
    /// of ``OrientationTransform``'s mapping, applied to the rectangle's edges).
    func stored(undoing orientation: ImageOrientation) -> ImageCrop {
        let (w, h) = orientation.swapsDimensions ? (wholeHeight, wholeWidth) : (wholeWidth, wholeHeight)
        let (sx, sy, sw, sh): (Int, Int, Int, Int) =
            switch orientation {
            case .identity: (x, y, width, height)
            case .flipHorizontal: (w - x - width, y, width, height)
            case .rotate180: (w - x - width, h - y - height, width, height)
            case .flipVertical: (x, h - y - height, width, height)
            case .transpose: (y, x, height, width)
            case .rotate90Clockwise: (y, h - x - width, height, width)
            case .transverse: (w - y - height, h - x - width, height, width)
            case .rotate90CounterClockwise: (w - y - height, x, height, width)
            }
        return ImageCrop(x: sx, y: sy, width: sw, height: sh, wholeWidth: w, wholeHeight: h)
    }
}

extension DecodedImage {
    /// The pixels of `crop` (a rectangle of this image) as an image of their own; the original
    /// size, decode scale and metadata stay the whole photo's.
    func cropped(to crop: ImageCrop) -> DecodedImage {
        if crop.x == 0, crop.y == 0, crop.width == width, crop.height == height { return self }
        let rowBytes = crop.width * 3
        let part = [UInt8](unsafeUninitializedCapacity: rowBytes * crop.height) { output, count in
            pixels.withUnsafeBufferPointer { source in
                for row in 0..<crop.height {
                    let from = ((crop.y + row) * width + crop.x) * 3
                    UnsafeMutableRawPointer(output.baseAddress! + row * rowBytes)
                        .copyMemory(from: source.baseAddress! + from, byteCount: rowBytes)
                }
            }
            count = rowBytes * crop.height
        }
        return DecodedImage(
            width: crop.width, height: crop.height, pixels: part, format: format, originalWidth: originalWidth,
            originalHeight: originalHeight, decodeScale: decodeScale, metadata: metadata)
    }
}

extension ImageDecoder {
    /// Decodes only the part of an image that `region` covers (pixels of the upright full-size
    /// photo, clipped to it), at the scale ``decode(_:minimumShortSide:)`` would choose for the
    /// whole photo. JPEGs (and so raw files' JPEG previews) skip the rows above the region and
    /// never decode the rows below it or transform the columns beside it, which saves time and
    /// memory when a small part of a large photo is needed (a face to describe); PNG, TIFF, HEIC
    /// and AVIF still decode every row but keep only the part's (no full-size buffer); WebP and GIF
    /// decode whole and are cut. Same errors as a whole decode.
    ///
    /// Usage: `let part = try decoder.decode(bytes, minimumShortSide: 3000, region: PixelRect(x: 1800, y: 900, width: 400, height: 400))`
    public func decode(_ data: some ContiguousBytes, minimumShortSide: Int? = nil, region: PixelRect) throws(ImageDecodingError) -> DecodedRegion {
        let unoriented = try decodeUnoriented(data, minimumShortSide: minimumShortSide, region: region)
        let image = unoriented.oriented()
        if let crop = unoriented.uprightCrop { return DecodedRegion(image: image, crop: crop) }
        let crop = ImageCrop.covering(
            region, fullWidth: image.originalWidth, fullHeight: image.originalHeight, wholeWidth: image.width, wholeHeight: image.height)
        return DecodedRegion(image: image.cropped(to: crop), crop: crop)
    }
}
