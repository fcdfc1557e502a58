/// Greedy non-maximum suppression as the two variants facenet-pytorch's MTCNN uses.
enum NonMaximumSuppression {
    /// How two boxes' overlap is measured.
    enum Overlap {
        /// Intersection over union, plain areas (torchvision `nms`): used within and across scales
        /// and after R-Net.
        case union
        /// Intersection over the smaller box, areas and sides with +1 (`nms_numpy(..., 'Min')`):
        /// used after O-Net.
        case minimum
    }

    /// Indices of the boxes kept, highest score first: repeatedly take the best remaining box and
    /// drop every remaining box overlapping it by more than `threshold`. Ties keep input order.
    static func keep(_ boxes: [(x1: Double, y1: Double, x2: Double, y2: Double, score: Double)], threshold: Double, overlap: Overlap) -> [Int] {
        var order = boxes.indices.sorted { boxes[$0].score > boxes[$1].score || (boxes[$0].score == boxes[$1].score && $0 < $1) }
        let one: Double = overlap == .minimum ? 1 : 0
        let areas = boxes.map { ($0.x2 - $0.x1 + one) * ($0.y2 - $0.y1 + one) }
        var kept: [Int] = []
        while let best = order.first {
            kept.append(best)
            let b = boxes[best]
            order = order.dropFirst().filter { i in
                let o = boxes[i]
                let w = max(min(b.x2, o.x2) - max(b.x1, o.x1) + one, 0)
                let h = max(min(b.y2, o.y2) - max(b.y1, o.y1) + one, 0)
                let inter = w * h
                let measure = overlap == .minimum ? inter / min(areas[best], areas[i]) : inter / (areas[best] + areas[i] - inter)
                return !(measure > threshold)
            }
        }
        return kept
    }
}
