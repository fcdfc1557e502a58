import CClassifyCodecs
import Foundation

/// Camera raw files (CR2, CR3, NEF, ARW, DNG, ORF, RW2, RAF, PEF, ...) through LibRaw. What is
/// classified is the preview the camera embedded (usually a JPEG, decoded here with DCT
/// scaling), turned by the raw file's own orientation: demosaicing the sensor data would cost
/// far more and show the same picture. A raw file without a usable preview fails with
/// `.noPreview`. Many raw formats are TIFF inside; a TIFF-structured file that LibRaw does not
/// take for a camera raw file is decoded as an ordinary TIFF.
enum CameraRawDecoding: FormatDecoder {
    /// Previews whose shorter side is below this are too small to classify reliably (the
    /// network looks at 224 x 224 pixels; old cameras embed only 160 x 120 thumbnails).
    static let minimumPreviewShortSide = 200

    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        var raw: OpaquePointer?
        var preview = cls_raw_preview()
        var message = cls_message()
        let status = cls_raw_open(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &raw, &preview, &message)
        defer { cls_raw_close(raw) }
        guard status == CLS_OK else {
            if status == CLS_UNSUPPORTED && ImageSignature.isTIFF(bytes) { return try TIFFDecoding.decode(bytes, request) }
            if status == CLS_UNSUPPORTED { throw .unsupportedFormat("a camera raw format this LibRaw does not know") }
            throw ImageDecodingError(status: status, message: message, width: 0, height: 0, limit: request.maximumPixelCount)
        }
        let camera = withUnsafeBytes(of: preview.camera) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            .trimmingCharacters(in: .whitespaces)
        let from = camera.isEmpty ? "" : " (\(camera))"
        let orientation = ImageOrientation(rawValue: Int(preview.orientation)) ?? .identity
        var image: UnorientedImage
        switch preview.kind {
        case CLS_RAW_PREVIEW_JPEG:
            let jpeg = UnsafeRawBufferPointer(start: preview.bytes, count: preview.length)
            guard ImageSignature(bytes: jpeg) == .format(.jpeg) else {
                throw .noPreview("the embedded preview\(from) is not a JPEG")
            }
            image = try JPEGDecoding.decode(
                jpeg, minimumShortSide: request.minimumShortSide, maximumPixelCount: request.maximumPixelCount, region: request.region,
                orientation: orientation)
        case CLS_RAW_PREVIEW_BITMAP:
            let width = Int(preview.width), height = Int(preview.height)
            guard width * height <= request.maximumPixelCount else {
                throw .tooLarge(width: width, height: height, limit: request.maximumPixelCount)
            }
            image = UnorientedImage(
                pixels: Array(UnsafeBufferPointer(start: preview.bytes, count: width * height * 3)), width: width,
                height: height, fullWidth: width, fullHeight: height, scaleDenominator: 1, format: .raw,
                orientation: orientation)
        default:
            throw .noPreview("\(message.string)\(from)")
        }
        guard min(image.fullWidth, image.fullHeight) >= minimumPreviewShortSide else {
            throw .noPreview("the embedded preview\(from) is only \(image.fullWidth)x\(image.fullHeight) pixels")
        }
        image.format = .raw
        // TIFF-based raw files carry their EXIF in the file's own IFDs (the preview's, if any,
        // is often stripped); others (CR3, RAF) keep what the preview JPEG had.
        if ImageSignature.isTIFF(bytes) { image.metadata = TIFFMetadata.read(bytes).filling(from: image.metadata) }
        return image
    }
}
