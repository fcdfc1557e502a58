extension FaceLandmarkModel {
    /// The landmarks of the face in `box`, in pixels of `image` (dlib's order: the eye nearer the
    /// image's right edge, outer then inner corner; the other eye, outer then inner; under the
    /// nose). The box's unit square runs from (x, y) to (x + width, y + height), as dlib's
    /// rectangle runs from its left to its right pixel. Any box works, even one outside the image
    /// (features there read 0); a box with a side that is not finite gives the box's corner.
    ///
    /// ```swift
    /// let points = model.landmarks(in: image, box: face.box)
    /// ```
    public func landmarks(in image: DecodedImage, box: PixelRect) -> [FacePoint] {
        guard box.x.isFinite, box.y.isFinite, box.width.isFinite, box.height.isFinite else {
            return Array(repeating: FacePoint(x: box.x, y: box.y), count: landmarkCount)
        }
        var shape = meanShape
        var intensities = [Float](repeating: 0, count: features)
        let mean = points(meanShape)
        for cascade in 0..<cascades {
            // dlib reads the features once per cascade, from the shape as it starts.
            readFeatures(of: cascade, shape: shape, mean: mean, image: image, box: box, into: &intensities)
            addLeaves(of: cascade, intensities: intensities, to: &shape)
        }
        return (0..<landmarkCount).map { FacePoint(x: box.x + shape[2 * $0] * box.width, y: box.y + shape[2 * $0 + 1] * box.height) }
    }

    /// The gray levels at `cascade`'s feature points: each point is a landmark of `shape` plus an
    /// offset, turned as `shape` is turned from the mean shape, then placed in `box`.
    private func readFeatures(
        of cascade: Int, shape: [Double], mean: [FacePoint], image: DecodedImage, box: PixelRect,
        into intensities: inout [Float]
    ) {
        let turn = SimilarityTransform.fitting(mean, to: points(shape)) ?? SimilarityTransform(a: 1, b: 0, tx: 0, ty: 0)
        for feature in 0..<features {
            let index = cascade * features + feature
            let anchor = Int(anchors[index])
            let offset = turn.turned(Double(deltas[2 * index]), Double(deltas[2 * index + 1]))
            let unitX = shape[2 * anchor] + offset.x, unitY = shape[2 * anchor + 1] + offset.y
            intensities[feature] = Self.intensity(in: image, x: box.x + unitX * box.width, y: box.y + unitY * box.height)
        }
    }

    /// Walks each tree of `cascade` down by the differences of two gray levels and adds the leaf
    /// it reaches to `shape`. The trees run 7,500 times per face, so the tables are read through
    /// pointers, without a bounds check or a copy-on-write test per value (the loader checked
    /// every index).
    private func addLeaves(of cascade: Int, intensities: [Float], to shape: inout [Double]) {
        splits.withUnsafeBufferPointer { splits in
            thresholds.withUnsafeBufferPointer { thresholds in
                leaves.withUnsafeBufferPointer { leaves in
                    intensities.withUnsafeBufferPointer { intensities in
                        shape.withUnsafeMutableBufferPointer { shape in
                            addLeaves(
                                of: cascade, splits: splits, thresholds: thresholds, leaves: leaves,
                                intensities: intensities, to: shape)
                        }
                    }
                }
            }
        }
    }

    private func addLeaves(
        of cascade: Int, splits: UnsafeBufferPointer<Int32>, thresholds: UnsafeBufferPointer<Float>,
        leaves: UnsafeBufferPointer<Float>, intensities: UnsafeBufferPointer<Float>,
        to shape: UnsafeMutableBufferPointer<Double>
    ) {
        let values = landmarkCount * 2
        for tree in 0..<treesPerCascade {
            let treeIndex = cascade * treesPerCascade + tree
            var node = 0
            while node < splitsPerTree {
                let split = treeIndex * splitsPerTree + node
                let difference = intensities[Int(splits[2 * split])] - intensities[Int(splits[2 * split + 1])]
                node = difference > thresholds[split] ? 2 * node + 1 : 2 * node + 2
            }
            let leaf = (treeIndex * (splitsPerTree + 1) + node - splitsPerTree) * values
            for value in 0..<values { shape[value] += Double(leaves[leaf + value]) }
        }
    }

    private func points(_ flat: [Double]) -> [FacePoint] {
        (0..<landmarkCount).map { FacePoint(x: flat[2 * $0], y: flat[2 * $0 + 1]) }
    }

    /// dlib's gray level of the pixel nearest (x, y): (r + g + b) / 3 in integers; 0 outside.
    static func intensity(in image: DecodedImage, x: Double, y: Double) -> Float {
        let column = (x + 0.5).rounded(.down), row = (y + 0.5).rounded(.down)
        guard column >= 0, row >= 0, column < Double(image.width), row < Double(image.height) else { return 0 }
        let offset = (Int(row) * image.width + Int(column)) * 3
        let sum = Int(image.pixels[offset]) + Int(image.pixels[offset + 1]) + Int(image.pixels[offset + 2])
        return Float(sum / 3)
    }
}
