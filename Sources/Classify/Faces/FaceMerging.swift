extension PixelRect {
    /// Intersection over union with `other` (plain areas); 0 when either is empty or they do not meet.
    ///
    /// Usage: `if a.intersectionOverUnion(b) > 0.5 { ... }`
    public func intersectionOverUnion(_ other: PixelRect) -> Double {
        let intersection = intersectionArea(other)
        let union = width * height + other.width * other.height - intersection
        return union > 0 ? intersection / union : 0
    }

    /// Whether `other` outlines the same face as this box, as two detectors draw it: they
    /// overlap by an intersection over union of at least 0.3, or half of the smaller box lies
    /// inside the larger (one detector's box around the face, the other's around its features).
    ///
    /// Usage: `let isNew = !stored.contains { $0.outlinesSameFace(as: found) }`
    public func outlinesSameFace(as other: PixelRect) -> Bool {
        let smaller = min(width * height, other.width * other.height)
        let intersection = intersectionArea(other)
        return intersectionOverUnion(other) >= 0.3 || (smaller > 0 && intersection >= 0.5 * smaller)
    }

    private func intersectionArea(_ other: PixelRect) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }
}

extension FaceDetectionResult {
    /// These faces less those outlining the same face as one of `boxes` (another detector's
    /// faces in the same image, ``PixelRect/outlinesSameFace(as:)``) or as a face kept before it:
    /// what this look adds to the other. In this result's order.
    ///
    /// Usage: `let missed = thorough.faces(notAmong: fast.faces.map(\.pixelBoundingBox))`
    public func faces(notAmong boxes: [PixelRect]) -> [FaceObservation] {
        var kept = boxes
        var added: [FaceObservation] = []
        for face in faces where !kept.contains(where: { $0.outlinesSameFace(as: face.pixelBoundingBox) }) {
            added.append(face)
            kept.append(face.pixelBoundingBox)
        }
        return added
    }

    /// These faces and those of `other` (another detector's look at the same image) that are not
    /// among them (``faces(notAmong:)``), highest confidence first: what two detectors find
    /// together. Their confidence scales differ (see `FaceDetector.defaultMinimumConfidence(for:)`),
    /// so the order mixes them.
    ///
    /// Usage: `let faces = try fast.detect(data: bytes).adding(try thorough.detect(data: bytes))`
    public func adding(_ other: FaceDetectionResult) -> FaceDetectionResult {
        var merged = faces + other.faces(notAmong: faces.map(\.pixelBoundingBox))
        merged.sort { $0.confidence > $1.confidence }
        return FaceDetectionResult(width: width, height: height, faces: merged)
    }
}
