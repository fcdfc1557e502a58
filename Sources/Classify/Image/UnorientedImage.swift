/// What a format's decoder produced, before its orientation is applied.
struct UnorientedImage: Sendable {
    var pixels: [UInt8]
    var width: Int
    var height: Int
    /// Full-size dimensions from the header, in stored (not yet oriented) order.
    var fullWidth: Int
    var fullHeight: Int
    /// `pixels` are 1/scaleDenominator of the full size (DCT or libwebp scaling), 1 otherwise.
    var scaleDenominator: Int
    var format: ImageFormat
    /// How the stored pixels must be turned to be upright (EXIF orientation, the TIFF tag,
    /// a raw file's flip); identity when the codec already applied it (HEIF transforms).
    var orientation: ImageOrientation
    /// Date taken, place and camera, read from the same bytes by the format's decoder.
    var metadata = PhotoMetadata()
    /// Set when the codec decoded only part of the picture (`pixels` are that part, in stored
    /// order): where it lies in the whole upright picture at this scale.
    var uprightCrop: ImageCrop?

    /// The upright image.
    func oriented() -> DecodedImage {
        let upright = OrientationTransform.apply(orientation, to: pixels, width: width, height: height)
        let (originalWidth, originalHeight) =
            orientation.swapsDimensions ? (fullHeight, fullWidth) : (fullWidth, fullHeight)
        return DecodedImage(
            width: upright.width, height: upright.height, pixels: upright.pixels, format: format,
            originalWidth: originalWidth, originalHeight: originalHeight,
            decodeScale: scaleDenominator, metadata: metadata)
    }
}
