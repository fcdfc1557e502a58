import Foundation

/// The three-stage MTCNN cascade of facenet-pytorch (`models/utils/detect_face.py`) on one
/// upright 8-bit RGB image, step for step:
///
/// 1. Pyramid: scales `12 / minimumFace * factor^k` while the short side stays >= 12 px; each
///    level area-resampled from the image to `(Int(h * s + 1), Int(w * s + 1))`; P-Net runs
///    fully convolutionally; cells with face probability >= `thresholds.0` become 12x12 windows
///    (stride 2) in image pixels; NMS (IoU 0.5) per level, then NMS (IoU 0.7) across levels;
///    box regression (by width/height without +1); boxes squared.
/// 2. R-Net on 24x24 area-resampled crops of the squared boxes (clipped to the image, 1-based as
///    upstream): probability > `thresholds.1`, NMS (IoU 0.7), regression (+1 sizes), squared.
/// 3. O-Net on 48x48 crops: probability > `thresholds.2`, landmarks from the box before
///    regression, regression, NMS (intersection over the smaller box 0.7).
///
/// One deliberate difference: upstream builds the crop batch without the boxes whose clipped crop
/// is empty but keeps those boxes, which misaligns boxes and network outputs; here such boxes are
/// dropped (they lie wholly outside the image).
struct MTCNNPipeline: Sendable {
    let pnet: DetectorNetwork
    let rnet: DetectorNetwork
    let onet: DetectorNetwork
    var minimumFace: Double = 20
    var factor: Double = 0.709
    var thresholds: (Double, Double, Double) = (0.6, 0.7, 0.7)

    typealias Box = (x1: Double, y1: Double, x2: Double, y2: Double, score: Double)

    /// The pyramid scales for an image of this size.
    func scales(width: Int, height: Int) -> [Double] {
        let m = 12 / minimumFace
        var side = Double(min(width, height)) * m
        var scale = m
        var result: [Double] = []
        while side >= 12 {
            result.append(scale)
            scale *= factor
            side *= factor
        }
        return result
    }

    /// Faces in `pixels` (RGB, `width * height * 3` bytes), highest score first.
    func detect(pixels: [UInt8], width: Int, height: Int) throws(ModelLoadingError) -> [FaceBox] {
        let result = pixels.withUnsafeBufferPointer { buffer in
            Result { () throws(ModelLoadingError) -> [FaceBox] in try detect(buffer, width: width, height: height) }
        }
        return try result.get()
    }

    private func detect(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws(ModelLoadingError) -> [FaceBox] {
        guard !scales(width: width, height: height).isEmpty else { return [] }
        // One table serves every pyramid level and every crop (the three networks share the
        // input normalization; checked at load).
        let resampling = AreaResampling(pixels, width: width, height: height, mean: pnet.description.input.mean, std: pnet.description.input.std)
        var boxes = try proposals(resampling)
        guard !boxes.isEmpty else { return [] }
        boxes = squared(boxes)

        // Stage 2: R-Net refines.
        var crops = cropRegions(boxes, width: width, height: height)
        boxes = crops.map { boxes[$0.index] }
        let rnetOutputs = try run(rnet, size: 24, crops: crops, resampling: resampling)
        var refined: [Box] = [], regressions: [[Float]] = []
        for (index, box) in boxes.enumerated() {
            let p = Double(rnetOutputs["probabilities"]![index * 2 + 1])
            if p > thresholds.1 {
                refined.append((box.x1, box.y1, box.x2, box.y2, p))
                regressions.append(Array(rnetOutputs["boxes"]![(index * 4)..<(index * 4 + 4)]))
            }
        }
        let rnetKept = NonMaximumSuppression.keep(refined, threshold: 0.7, overlap: .union)
        boxes = squared(rnetKept.map { regressed(refined[$0], by: regressions[$0]) })
        guard !boxes.isEmpty else { return [] }

        // Stage 3: O-Net outputs the final boxes and landmarks.
        crops = cropRegions(boxes, width: width, height: height)
        boxes = crops.map { boxes[$0.index] }
        let onetOutputs = try run(onet, size: 48, crops: crops, resampling: resampling)
        var faces: [FaceBox] = []
        for (index, box) in boxes.enumerated() {
            let p = Double(onetOutputs["probabilities"]![index * 2 + 1])
            guard p > thresholds.2 else { continue }
            let points = onetOutputs["landmarks"]![(index * 10)..<(index * 10 + 10)].map(Double.init)
            let w = box.x2 - box.x1 + 1, h = box.y2 - box.y1 + 1
            var landmarks: [Double] = []
            for i in 0..<5 {
                landmarks.append(w * points[i] + box.x1 - 1)
                landmarks.append(h * points[5 + i] + box.y1 - 1)
            }
            let final = regressed((box.x1, box.y1, box.x2, box.y2, p), by: Array(onetOutputs["boxes"]![(index * 4)..<(index * 4 + 4)]))
            faces.append(FaceBox(x1: final.x1, y1: final.y1, x2: final.x2, y2: final.y2, score: p, landmarks: landmarks))
        }
        let kept = NonMaximumSuppression.keep(faces.map { ($0.x1, $0.y1, $0.x2, $0.y2, $0.score) }, threshold: 0.7, overlap: .minimum)
        return kept.map { faces[$0] }
    }

    /// Stage 1: candidate boxes (regressed, not yet squared) from P-Net over the pyramid.
    private func proposals(_ resampling: AreaResampling) throws(ModelLoadingError) -> [Box] {
        let width = resampling.width, height = resampling.height
        var candidates: [(box: Box, regression: (Double, Double, Double, Double))] = []
        for scale in scales(width: width, height: height) {
            let levelHeight = Int(Double(height) * scale + 1), levelWidth = Int(Double(width) * scale + 1)
            let outputs = try pnet.run(height: levelHeight, width: levelWidth) { input in
                resampling.resample(x0: 0, y0: 0, width: width, height: height, outWidth: levelWidth, outHeight: levelHeight, into: input.baseAddress!)
            }
            let map = try pnet.outputShape("probabilities", height: levelHeight, width: levelWidth)
            let probabilities = outputs["probabilities"]!, regression = outputs["boxes"]!
            var level: [(box: Box, regression: (Double, Double, Double, Double))] = []
            for y in 0..<map.height {
                for x in 0..<map.width {
                    let cell = y * map.width + x
                    let p = Double(probabilities[cell * 2 + 1])
                    guard p >= thresholds.0 else { continue }
                    let box: Box = (
                        ((2 * Double(x) + 1) / scale).rounded(.down), ((2 * Double(y) + 1) / scale).rounded(.down),
                        ((2 * Double(x) + 12) / scale).rounded(.down), ((2 * Double(y) + 12) / scale).rounded(.down), p)
                    let r = regression[(cell * 4)..<(cell * 4 + 4)].map(Double.init)
                    level.append((box, (r[0], r[1], r[2], r[3])))
                }
            }
            candidates += NonMaximumSuppression.keep(level.map(\.box), threshold: 0.5, overlap: .union).map { level[$0] }
        }
        let kept = NonMaximumSuppression.keep(candidates.map(\.box), threshold: 0.7, overlap: .union)
        return kept.map { index in
            let (b, r) = candidates[index]
            let w = b.x2 - b.x1, h = b.y2 - b.y1
            return (b.x1 + r.0 * w, b.y1 + r.1 * h, b.x2 + r.2 * w, b.y2 + r.3 * h, b.score)
        }
    }

    /// `rerec`: the smallest square around the box's center covering it.
    private func squared(_ boxes: [Box]) -> [Box] {
        boxes.map { b in
            let w = b.x2 - b.x1, h = b.y2 - b.y1, side = max(w, h)
            let x1 = b.x1 + w * 0.5 - side * 0.5, y1 = b.y1 + h * 0.5 - side * 0.5
            return (x1, y1, x1 + side, y1 + side, b.score)
        }
    }

    /// `bbreg`: moves each side by the network's offset times the box size (+1).
    private func regressed(_ b: Box, by r: [Float]) -> Box {
        let w = b.x2 - b.x1 + 1, h = b.y2 - b.y1 + 1
        return (b.x1 + Double(r[0]) * w, b.y1 + Double(r[1]) * h, b.x2 + Double(r[2]) * w, b.y2 + Double(r[3]) * h, b.score)
    }

    /// `pad`: each box truncated to integers and clipped to the image, 1-based inclusive as
    /// upstream, as a 0-based pixel region; boxes whose region is empty are left out.
    private func cropRegions(_ boxes: [Box], width: Int, height: Int) -> [(index: Int, x: Int, y: Int, width: Int, height: Int)] {
        boxes.enumerated().compactMap { index, b in
            guard [b.x1, b.y1, b.x2, b.y2].allSatisfy({ $0.isFinite && abs($0) < 1e9 }) else { return nil }
            let x = max(Int(b.x1), 1), y = max(Int(b.y1), 1)
            let ex = min(Int(b.x2), width), ey = min(Int(b.y2), height)
            guard ex > x - 1, ey > y - 1 else { return nil }
            return (index, x - 1, y - 1, ex - x + 1, ey - y + 1)
        }
    }

    private func run(
        _ network: DetectorNetwork, size: Int, crops: [(index: Int, x: Int, y: Int, width: Int, height: Int)],
        resampling: AreaResampling
    ) throws(ModelLoadingError) -> [String: [Float]] {
        try network.runBatched(count: crops.count, height: size, width: size) { index, input in
            let crop = crops[index]
            resampling.resample(x0: crop.x, y0: crop.y, width: crop.width, height: crop.height, outWidth: size, outHeight: size, into: input)
        }
    }
}
