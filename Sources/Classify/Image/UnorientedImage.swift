/// What a codec produced, before the EXIF orientation is applied.
struct UnorientedImage: Sendable {
    var pixels: [UInt8]
    var width: Int
    var height: Int
    /// Full-size dimensions from the header, in stored (not yet oriented) order.
    var fullWidth: Int
    var fullHeight: Int
    var scaleDenominator: Int
    var format: ImageFormat
    /// EXIF data found in the file (JPEG APP1 or PNG eXIf), if any.
    var exif: [UInt8]?

    /// The upright image, with orientation taken from the EXIF data (identity without it).
    func oriented() -> DecodedImage {
        let orientation = exif.map(ExifOrientationReader.orientation(in:)) ?? .identity
        let upright = OrientationTransform.apply(
            orientation, to: pixels, width: width, height: height)
        let (originalWidth, originalHeight) =
            orientation.swapsDimensions ? (fullHeight, fullWidth) : (fullWidth, fullHeight)
        return DecodedImage(
            width: upright.width, height: upright.height, pixels: upright.pixels, format: format,
            originalWidth: originalWidth, originalHeight: originalHeight,
            decodeScale: scaleDenominator)
    }
}
