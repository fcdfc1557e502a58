/// MediaPipe's BlazeFace face detection (full range) on one upright 8-bit RGB image, as its graph
/// `face_detection_full_range.pbtxt` runs it, with our own letterbox resampling:
///
/// 1. Letterbox the whole image into the 192 x 192 input (`Letterbox`: aspect kept, centered,
///    border pixel 0), area-resampled (`AreaResampling`; MediaPipe warps bilinearly), scaled to
///    [-1, 1] by the network's own mean and std (127.5, 127.5). The enlarged look
///    (`BlazeFaceViews.shortSide`) letterboxes it again into a larger input shaped like it, on
///    which the fully convolutional network gives a quarter-size grid of anchors.
/// 2. Run the network: 2,304 anchors of 16 box and keypoint values and one face logit.
/// 3. Decode against the SSD anchors (`FaceDetectionDecoding`), score = sigmoid of the clipped
///    logit, candidates from `decoding.minimumScore`.
/// 4. Weighted non-maximum suppression at IoU 0.3 (`WeightedNonMaximumSuppression`).
/// 5. Map boxes and keypoints back through the letterbox to pixels of the image.
///
/// Keypoints are MediaPipe's six, in its order: the subject's right eye, left eye, nose tip,
/// mouth center, right ear tragion, left ear tragion. Immutable and shared; the network's
/// workspaces are pooled by `DetectorNetwork`.
struct BlazeFacePipeline: Sendable {
    let network: DetectorNetwork
    var decoding: FaceDetectionDecoding
    var suppressionThreshold = WeightedNonMaximumSuppression.defaultThreshold

    /// Checks that the network fits the full-range anchor layout and precomputes the anchors.
    init(network: DetectorNetwork) throws(ModelLoadingError) {
        self.network = network
        let input = network.description.input
        var anchorOptions = SSDAnchorOptions.blazeFaceFullRange
        anchorOptions.inputWidth = input.width
        anchorOptions.inputHeight = input.height
        decoding = FaceDetectionDecoding(anchors: SSDAnchor.anchors(anchorOptions), scaleX: Double(input.width), scaleY: Double(input.height))
        let file = network.directoryName + "/model.json"
        guard input.width == input.height else {
            throw .invalidGraph(file: file, node: input.name, reason: "BlazeFace needs a square input, not \(input.width)x\(input.height)")
        }
        for (role, perAnchor) in [("boxes", decoding.coordinates), ("scores", 1)] {
            guard network.description.outputs[role] != nil else {
                throw .invalidGraph(file: file, node: role, reason: "the detector needs an output '\(role)'")
            }
            let shape = try network.outputShape(role, height: input.height, width: input.width)
            guard shape.elementCount == decoding.anchors.count * perAnchor else {
                throw .invalidGraph(file: file, node: role, reason: "output \(shape) is not \(perAnchor) value(s) for each of \(decoding.anchors.count) anchors")
            }
        }
    }

    /// The network's raw outputs for one image: `boxes` (16 per anchor) and `scores` (logits).
    func rawOutputs(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws(ModelLoadingError) -> (letterbox: Letterbox, boxes: [Float], logits: [Float]) {
        let input = network.description.input
        return try rawOutputs(.whole(pixels), view: BlazeFaceViews.Rectangle(x: 0, y: 0, width: width, height: height, isTile: false),
                              inputWidth: input.width, inputHeight: input.height)
    }

    /// The decoding of an input of `width x height` (`decoding` at the network's declared size;
    /// else its anchors laid over that input's grid, the offsets scaled by its sides).
    func decoding(inputWidth width: Int, inputHeight height: Int) -> FaceDetectionDecoding {
        let input = network.description.input
        guard width != input.width || height != input.height else { return decoding }
        var options = SSDAnchorOptions.blazeFaceFullRange
        options.inputWidth = width
        options.inputHeight = height
        var sized = decoding
        sized.anchors = SSDAnchor.anchors(options)
        sized.scaleX = Double(width)
        sized.scaleY = Double(height)
        return sized
    }

    /// Where a view's input is resampled from: the image itself when it is looked at once, else
    /// one summed-area table shared by its views.
    private enum Source {
        case whole(UnsafeBufferPointer<UInt8>)
        case table(AreaResampling)
    }

    /// The network's raw outputs for one view (a rectangle of the image, letterboxed alone into
    /// an input of `inputWidth x inputHeight`).
    private func rawOutputs(_ source: Source, view: BlazeFaceViews.Rectangle, inputWidth: Int, inputHeight: Int) throws(ModelLoadingError) -> (letterbox: Letterbox, boxes: [Float], logits: [Float]) {
        let input = network.description.input
        let letterbox = Letterbox(imageWidth: view.width, imageHeight: view.height, inputWidth: inputWidth, inputHeight: inputHeight)
        let border = ((0 - input.mean[0]) / input.std[0], (0 - input.mean[1]) / input.std[1], (0 - input.mean[2]) / input.std[2])
        let outputs = try network.run(height: inputHeight, width: inputWidth) { buffer in
            switch source {
            case .whole(let pixels): letterbox.fill(from: pixels, mean: input.mean, std: input.std, border: border, into: buffer.baseAddress!)
            case .table(let resampling): letterbox.fill(from: resampling, region: (view.x, view.y), border: border, into: buffer.baseAddress!)
            }
        }
        return (letterbox, outputs["boxes"] ?? [], outputs["scores"] ?? [])
    }

    /// Faces in `pixels` (RGB, `width * height * 3` bytes), highest score first, in pixels of the
    /// image (boxes not clipped), keypoints as (x, y) pairs. With tiles (`views`), each view's
    /// candidates are mapped to the image, a tile's candidates cut by one of its inner edges are
    /// dropped, and all views' candidates are merged by one weighted non-maximum suppression.
    func detect(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, views: BlazeFaceViews = .whole) throws(ModelLoadingError) -> [FaceCandidate] {
        try detect(pixels: pixels, width: width, height: height, views: views, rectangles: views.rectangles(width: width, height: height))
    }

    /// Faces in some of `views`' rectangles (`rectangles`; tests look through one alone).
    func detect(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, views: BlazeFaceViews, rectangles: [BlazeFaceViews.Rectangle]) throws(ModelLoadingError) -> [FaceCandidate] {
        guard width > 0, height > 0, pixels.count >= width * height * 3 else { return [] }
        let input = network.description.input
        let source: Source = !rectangles.contains(where: \.isTile)
            ? .whole(pixels) : .table(AreaResampling(pixels, width: width, height: height, mean: input.mean, std: input.std))
        var candidates: [FaceCandidate] = []
        for view in rectangles {
            let shape = views.input(of: view, side: input.width)
            let (letterbox, boxes, logits) = try rawOutputs(source, view: view, inputWidth: shape.width, inputHeight: shape.height)
            let decoding = decoding(inputWidth: shape.width, inputHeight: shape.height)
            let found = boxes.withUnsafeBufferPointer { boxes in
                logits.withUnsafeBufferPointer { logits in decoding.candidates(boxes: boxes, logits: logits) }
            }
            for face in found {
                let mapped = Self.map(face, through: letterbox, offsetX: Double(view.x), offsetY: Double(view.y))
                if view.isTile {
                    // Cut by an edge of the tile that is not an edge of the image: a part of a face.
                    let margin = 0.02 * Double(max(view.width, view.height))
                    if (view.x > 0 && mapped.xMin < Double(view.x) + margin) || (view.y > 0 && mapped.yMin < Double(view.y) + margin)
                        || (view.x + view.width < width && mapped.xMax > Double(view.x + view.width) - margin)
                        || (view.y + view.height < height && mapped.yMax > Double(view.y + view.height) - margin) { continue }
                }
                candidates.append(mapped)
            }
        }
        return WeightedNonMaximumSuppression.merge(candidates, threshold: suppressionThreshold)
    }

    /// A candidate of a view's network input (normalized) in pixels of the image.
    private static func map(_ face: FaceCandidate, through letterbox: Letterbox, offsetX: Double, offsetY: Double) -> FaceCandidate {
        let topLeft = letterbox.imagePoint(x: face.xMin, y: face.yMin), bottomRight = letterbox.imagePoint(x: face.xMax, y: face.yMax)
        var keypoints: [Double] = []
        keypoints.reserveCapacity(face.keypoints.count)
        for k in stride(from: 0, to: face.keypoints.count - 1, by: 2) {
            let point = letterbox.imagePoint(x: face.keypoints[k], y: face.keypoints[k + 1])
            keypoints += [point.x + offsetX, point.y + offsetY]
        }
        return FaceCandidate(xMin: topLeft.x + offsetX, yMin: topLeft.y + offsetY, xMax: bottomRight.x + offsetX, yMax: bottomRight.y + offsetY,
                             keypoints: keypoints, score: face.score)
    }
}
