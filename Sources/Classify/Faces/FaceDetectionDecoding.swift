import Foundation

/// A face candidate of an anchor-based detector, in normalized coordinates of the network input
/// (0...1, top-left origin): box corners, keypoints and score.
struct FaceCandidate: Sendable, Equatable {
    var xMin: Double, yMin: Double, xMax: Double, yMax: Double
    /// Keypoints as (x, y) pairs.
    var keypoints: [Double]
    var score: Double

    var width: Double { xMax - xMin }
    var height: Double { yMax - yMin }

    /// Intersection over union (MediaPipe's `OverlapSimilarity` with `INTERSECTION_OVER_UNION`);
    /// 0 when the boxes do not meet or have no area.
    func intersectionOverUnion(_ other: FaceCandidate) -> Double {
        let w = min(xMax, other.xMax) - max(xMin, other.xMin)
        let h = min(yMax, other.yMax) - max(yMin, other.yMin)
        guard w > 0, h > 0 else { return 0 }
        let intersection = w * h
        let union = width * height + other.width * other.height - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// Turns an SSD face detector's raw outputs into candidates, as MediaPipe's
/// `TensorsToDetectionsCalculator` does with BlazeFace's options (`face_detection.pbtxt`): per
/// anchor, `coordinates` values (`reverse_output_order`: x before y) holding the box center
/// offset, width and height, then `keypointCount` (x, y) pairs, all in units of 1 / `scaleX`
/// (along x) or 1 / `scaleY` (along y) times the anchor's size, offsets from the anchor's
/// center; the score is the sigmoid of the logit clamped to +-`scoreClipping`. Candidates below
/// `minimumScore`, with negative or NaN width or height, are dropped.
struct FaceDetectionDecoding: Sendable {
    var anchors: [SSDAnchor]
    var coordinates = 16
    var keypointCount = 6
    var keypointOffset = 4
    /// x_scale = w_scale = 192 (the input width) for BlazeFace full range at 192 x 192.
    var scaleX: Double = 192
    /// y_scale = h_scale = 192 (the input height) for BlazeFace full range at 192 x 192.
    var scaleY: Double = 192
    var scoreClipping: Double = 100
    /// 0.5: below MediaPipe's own 0.6 (`min_score_thresh`), so the caller's threshold decides.
    var minimumScore: Double = 0.5

    /// - Parameters:
    ///   - boxes: `anchors.count * coordinates` values, anchor-major.
    ///   - logits: one per anchor.
    func candidates(boxes: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>) -> [FaceCandidate] {
        precondition(boxes.count >= anchors.count * coordinates && logits.count >= anchors.count)
        var result: [FaceCandidate] = []
        for (index, anchor) in anchors.enumerated() {
            let logit = min(max(Double(logits[index]), -scoreClipping), scoreClipping)
            let score = 1 / (1 + exp(-logit))
            guard score >= minimumScore else { continue }  // also drops NaN
            let raw = boxes.baseAddress! + index * coordinates
            let centerX = Double(raw[0]) / scaleX * anchor.width + anchor.centerX
            let centerY = Double(raw[1]) / scaleY * anchor.height + anchor.centerY
            let width = Double(raw[2]) / scaleX * anchor.width, height = Double(raw[3]) / scaleY * anchor.height
            guard width >= 0, height >= 0 else { continue }  // also drops NaN
            var keypoints: [Double] = []
            keypoints.reserveCapacity(keypointCount * 2)
            for k in 0..<keypointCount {
                keypoints.append(Double(raw[keypointOffset + 2 * k]) / scaleX * anchor.width + anchor.centerX)
                keypoints.append(Double(raw[keypointOffset + 2 * k + 1]) / scaleY * anchor.height + anchor.centerY)
            }
            result.append(FaceCandidate(
                xMin: centerX - width / 2, yMin: centerY - height / 2, xMax: centerX + width / 2, yMax: centerY + height / 2,
                keypoints: keypoints, score: score))
        }
        return result
    }
}
