/// MediaPipe's weighted non-maximum suppression (`NonMaxSuppressionCalculator`, algorithm
/// `WEIGHTED`, read for its rules): take the best remaining candidate; every remaining candidate
/// overlapping it by IoU above `threshold` (itself included) is removed, and the face kept has
/// the best candidate's score with box corners and keypoints averaged over those candidates,
/// weighted by their scores. Repeat until none remain.
///
/// One deliberate difference: MediaPipe stops altogether when the best candidate does not
/// overlap itself (a box of zero area), dropping every candidate after it; here only that
/// candidate is kept as it is and the loop goes on.
enum WeightedNonMaximumSuppression {
    /// 0.3, MediaPipe's `min_suppression_threshold` for face detection (`face_detection.pbtxt`).
    static let defaultThreshold = 0.3

    /// The merged faces, highest score first. Ties keep input order.
    static func merge(_ candidates: [FaceCandidate], threshold: Double = defaultThreshold) -> [FaceCandidate] {
        var remaining = candidates.indices.sorted { candidates[$0].score > candidates[$1].score || (candidates[$0].score == candidates[$1].score && $0 < $1) }
        var faces: [FaceCandidate] = []
        while let best = remaining.first {
            let top = candidates[best]
            var overlapping = remaining.filter { candidates[$0].intersectionOverUnion(top) > threshold }
            if overlapping.isEmpty { overlapping = [best] }
            let merged = Set(overlapping)
            remaining.removeAll { merged.contains($0) }
            var face = top
            if overlapping.count > 1 {
                var total = 0.0, xMin = 0.0, yMin = 0.0, xMax = 0.0, yMax = 0.0
                var keypoints = [Double](repeating: 0, count: top.keypoints.count)
                for index in overlapping {
                    let candidate = candidates[index], weight = candidate.score
                    total += weight
                    xMin += candidate.xMin * weight; yMin += candidate.yMin * weight
                    xMax += candidate.xMax * weight; yMax += candidate.yMax * weight
                    for k in keypoints.indices where k < candidate.keypoints.count { keypoints[k] += candidate.keypoints[k] * weight }
                }
                face.xMin = xMin / total; face.yMin = yMin / total; face.xMax = xMax / total; face.yMax = yMax / total
                face.keypoints = keypoints.map { $0 / total }
            }
            faces.append(face)
        }
        return faces
    }
}
