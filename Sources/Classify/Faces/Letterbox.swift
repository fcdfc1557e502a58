/// Where an image goes in a network input when it is scaled to fit with its aspect ratio kept
/// and centered, the rest a border (MediaPipe's `ImageToTensorCalculator` with
/// `keep_aspect_ratio`, which BlazeFace expects): the content is `contentWidth x contentHeight`
/// (the limiting side filled, the other scaled by the same factor and rounded half up) at
/// (`left`, `top`) = half the spare room, rounded down. The input is square (192 x 192) for one
/// view of the photo, or shaped like the photo for a larger look (`BlazeFaceViews.shortSide`).
///
/// Usage: `let box = Letterbox(imageWidth: 640, imageHeight: 480, side: 192)  // 192x144 at (0, 24)`
struct Letterbox: Sendable, Equatable {
    let imageWidth: Int
    let imageHeight: Int
    let inputWidth: Int
    let inputHeight: Int
    let contentWidth: Int
    let contentHeight: Int
    let left: Int
    let top: Int

    /// A square input of `side` pixels.
    init(imageWidth: Int, imageHeight: Int, side: Int) {
        self.init(imageWidth: imageWidth, imageHeight: imageHeight, inputWidth: side, inputHeight: side)
    }

    /// An input of `inputWidth x inputHeight` pixels.
    init(imageWidth: Int, imageHeight: Int, inputWidth: Int, inputHeight: Int) {
        precondition(imageWidth > 0 && imageHeight > 0 && inputWidth > 0 && inputHeight > 0)
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        // Which side limits: the image's width when width / height >= the input's.
        let (filled, limit) = imageWidth * inputHeight >= imageHeight * inputWidth ? (inputWidth, imageWidth) : (inputHeight, imageHeight)
        // filled * n / limit rounded half up, in integers (no float ties to break differently).
        func fit(_ n: Int, within side: Int) -> Int { max(1, min(side, (2 * filled * n + limit) / (2 * limit))) }
        contentWidth = fit(imageWidth, within: inputWidth)
        contentHeight = fit(imageHeight, within: inputHeight)
        left = (inputWidth - contentWidth) / 2
        top = (inputHeight - contentHeight) / 2
    }

    /// A point of the network input, normalized (0...1), in pixels of the image.
    func imagePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x * Double(inputWidth) - Double(left)) * Double(imageWidth) / Double(contentWidth),
         (y * Double(inputHeight) - Double(top)) * Double(imageHeight) / Double(contentHeight))
    }

    /// Writes the network input (`inputWidth * inputHeight * 3` floats, NHWC) at `output`: the border is
    /// pixel value 0 normalized like the image (`border`), the content area-resampled.
    /// `region` is where this letterbox's image lies in the resampled one (a tile; default: the
    /// whole image).
    func fill(from resampling: AreaResampling, region: (x: Int, y: Int) = (0, 0), border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        precondition(region.x >= 0 && region.y >= 0 && region.x + imageWidth <= resampling.width && region.y + imageHeight <= resampling.height)
        fillBorder(border, into: output)
        resampling.resample(
            x0: region.x, y0: region.y, width: imageWidth, height: imageHeight, outWidth: contentWidth, outHeight: contentHeight,
            into: output + (top * inputWidth + left) * 3, rowStride: inputWidth * 3)
    }

    /// The same for a whole image resampled once, without a summed-area table
    /// (`AreaResampling.resample(_:width:height:...)`; the same values). `pixels` is RGB,
    /// `imageWidth * imageHeight * 3` bytes, normalized by `mean` and `std`.
    func fill(from pixels: UnsafeBufferPointer<UInt8>, mean: [Float], std: [Float], border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        fillBorder(border, into: output)
        AreaResampling.resample(
            pixels, width: imageWidth, height: imageHeight, mean: mean, std: std, x0: 0, y0: 0, width: imageWidth, height: imageHeight,
            outWidth: contentWidth, outHeight: contentHeight, into: output + (top * inputWidth + left) * 3, rowStride: inputWidth * 3)
    }

    private func fillBorder(_ border: (Float, Float, Float), into output: UnsafeMutablePointer<Float>) {
        for pixel in 0..<(inputWidth * inputHeight) {
            output[pixel * 3] = border.0; output[pixel * 3 + 1] = border.1; output[pixel * 3 + 2] = border.2
        }
    }
}
