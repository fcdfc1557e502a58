import Foundation

/// A 2-D similarity transform: rotation, uniform scale and translation,
/// `x' = a x - b y + tx`, `y' = b x + a y + ty`.
///
/// Face recognition uses it twice: to carry the shape predictor's feature offsets from the mean
/// shape to the current one, and to place the face chip on the landmarks.
struct SimilarityTransform: Sendable, Equatable {
    var a: Double
    var b: Double
    var tx: Double
    var ty: Double

    /// The least-squares transform taking `source` to `target` (the closed form of Umeyama's
    /// method in the plane); nil when the lists differ in length, hold fewer than two points, or
    /// the source points all coincide (no scale or angle can be told).
    static func fitting(_ source: [FacePoint], to target: [FacePoint]) -> SimilarityTransform? {
        guard source.count == target.count, source.count >= 2 else { return nil }
        let count = Double(source.count)
        let sourceX = source.reduce(0) { $0 + $1.x } / count, sourceY = source.reduce(0) { $0 + $1.y } / count
        let targetX = target.reduce(0) { $0 + $1.x } / count, targetY = target.reduce(0) { $0 + $1.y } / count
        var spread = 0.0, along = 0.0, across = 0.0
        for (s, t) in zip(source, target) {
            let sx = s.x - sourceX, sy = s.y - sourceY, dx = t.x - targetX, dy = t.y - targetY
            spread += sx * sx + sy * sy
            along += sx * dx + sy * dy
            across += sx * dy - sy * dx
        }
        guard spread > 0, spread.isFinite, along.isFinite, across.isFinite else { return nil }
        let a = along / spread, b = across / spread
        return SimilarityTransform(a: a, b: b, tx: targetX - (a * sourceX - b * sourceY), ty: targetY - (b * sourceX + a * sourceY))
    }

    /// The image of `point`.
    func applied(to point: FacePoint) -> FacePoint {
        FacePoint(x: a * point.x - b * point.y + tx, y: b * point.x + a * point.y + ty)
    }

    /// The image of a vector (rotation and scale only).
    func turned(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (a * x - b * y, b * x + a * y) }

    var scale: Double { (a * a + b * b).squareRoot() }
    var angle: Double { atan2(b, a) }
}
