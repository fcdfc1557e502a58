/// A detected face in pixel coordinates of the image the detector ran on: corners `(x1, y1)`
/// (top-left) and `(x2, y2)`, the O-Net face probability and five landmarks (left eye, right
/// eye, nose, left and right mouth corner, in the image's left/right), as `[x0, y0, ... x4, y4]`.
/// Coordinates follow facenet-pytorch's MTCNN output: not clipped to the image.
struct FaceBox: Sendable, Equatable {
    var x1: Double, y1: Double, x2: Double, y2: Double
    var score: Double
    var landmarks: [Double]

    var width: Double { x2 - x1 }
    var height: Double { y2 - y1 }

    /// Intersection over union with plain areas (no +1), as torchvision's `box_iou`.
    func intersectionOverUnion(_ other: FaceBox) -> Double {
        let w = max(min(x2, other.x2) - max(x1, other.x1), 0)
        let h = max(min(y2, other.y2) - max(y1, other.y1), 0)
        let inter = w * h
        let union = width * height + other.width * other.height - inter
        return union > 0 ? inter / union : 0
    }
}
