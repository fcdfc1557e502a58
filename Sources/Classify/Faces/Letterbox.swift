/// Where an image goes in a square network input when it is scaled to fit with its aspect ratio
/// kept and centered, the rest a border (MediaPipe's `ImageToTensorCalculator` with
/// `keep_aspect_ratio`, which BlazeFace expects): the content is `contentWidth x contentHeight`
/// (the long side `side`, the short side `side * short / long` rounded half up) at
/// (`left`, `top`) = half the spare room, rounded down.
///
/// Usage: `let box = Letterbox(imageWidth: 640, imageHeight: 480, side: 192)  // 192x144 at (0, 24)`
struct Letterbox: Sendable, Equatable {
    let imageWidth: Int
    let imageHeight: Int
    let side: Int
    let contentWidth: Int
    let contentHeight: Int
    let left: Int
    let top: Int

    init(imageWidth: Int, imageHeight: Int, side: Int) {
        precondition(imageWidth > 0 && imageHeight > 0 && side > 0)
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.side = side
        let long = max(imageWidth, imageHeight)
        // side * n / long rounded half up, in integers (no float ties to break differently).
        func fit(_ n: Int) -> Int { max(1, min(side, (2 * side * n + long) / (2 * long))) }
        contentWidth = fit(imageWidth)
        contentHeight = fit(imageHeight)
        left = (side - contentWidth) / 2
        top = (side - contentHeight) / 2
    }

    /// A point of the network input, normalized (0...1), in pixels of the image.
    func imagePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x * Double(side) - Double(left)) * Double(imageWidth) / Double(contentWidth),
         (y * Double(side) - Double(top)) * Double(imageHeight) / Double(contentHeight))
    }

    /// Writes the network input (`side * side * 3` floats, NHWC) at `output`: the border is
    /// pixel value 0 normalized like the image (`border`), the content area-resampled.
    /// `region` is where this letterbox's image lies in the resampled one (a tile; default: the
    /// whole image).
    func fill(from resampling: AreaResampling, region: (x: Int, y: Int) = (0, 0), border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        precondition(region.x >= 0 && region.y >= 0 && region.x + imageWidth <= resampling.width && region.y + imageHeight <= resampling.height)
        fillBorder(border, into: output)
        resampling.resample(
            x0: region.x, y0: region.y, width: imageWidth, height: imageHeight, outWidth: contentWidth, outHeight: contentHeight,
            into: output + (top * side + left) * 3, rowStride: side * 3)
    }

    /// The same for a whole image resampled once, without a summed-area table
    /// (`AreaResampling.resample(_:width:height:...)`; the same values). `pixels` is RGB,
    /// `imageWidth * imageHeight * 3` bytes, normalized by `mean` and `std`.
    func fill(from pixels: UnsafeBufferPointer<UInt8>, mean: [Float], std: [Float], border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        fillBorder(border, into: output)
        AreaResampling.resample(
            pixels, width: imageWidth, height: imageHeight, mean: mean, std: std, x0: 0, y0: 0, width: imageWidth, height: imageHeight,
            outWidth: contentWidth, outHeight: contentHeight, into: output + (top * side + left) * 3, rowStride: side * 3)
    }

    private func fillBorder(_ border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        for pixel in 0..<(side * side) {
            output[pixel * 3] = border.0; output[pixel * 3 + 1] = border.1; output[pixel * 3 + 2] = border.2
        }
    }
}
