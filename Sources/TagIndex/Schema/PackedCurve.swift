/// The `curves.points` blob: a precision/recall curve as (threshold, precision, recall)
/// triples of little-endian IEEE-754 doubles, 24 bytes per point, in increasing threshold
/// order with one point per threshold.
///
/// Most labels share one pooled curve, so curves are stored once each and labels point at
/// them (`labels.curve_id`): a taxonomy of ~1,400 labels then writes a few dozen blobs instead
/// of ~90,000 rows.
package enum PackedCurve {
    static let bytesPerPoint = 24

    /// The blob of `points`: sorted by threshold; of two points with the same threshold the
    /// later one in `points` is kept.
    package static func pack(_ points: [CurvePoint]) -> [UInt8] {
        let ordered = ordered(points)
        return [UInt8](unsafeUninitializedCapacity: ordered.count * bytesPerPoint) { bytes, initialized in
            let raw = UnsafeMutableRawBufferPointer(bytes)
            for (index, point) in ordered.enumerated() {
                let offset = index * bytesPerPoint
                raw.storeBytes(of: point.threshold.bitPattern.littleEndian, toByteOffset: offset, as: UInt64.self)
                raw.storeBytes(of: point.precision.bitPattern.littleEndian, toByteOffset: offset + 8, as: UInt64.self)
                raw.storeBytes(of: point.recall.bitPattern.littleEndian, toByteOffset: offset + 16, as: UInt64.self)
            }
            initialized = ordered.count * bytesPerPoint
        }
    }

    /// `points` by rising threshold, the last of equal thresholds kept. Calibration writes its
    /// curves already in order, so that case is only checked (a dictionary and a sort per curve
    /// were a fifth of installing a taxonomy's ~1,000 curves).
    private static func ordered(_ points: [CurvePoint]) -> [CurvePoint] {
        if zip(points, points.dropFirst()).allSatisfy({ $0.threshold < $1.threshold }) { return points }
        let sorted = points.indices.sorted { a, b in
            points[a].threshold < points[b].threshold || (points[a].threshold == points[b].threshold && a < b)
        }
        var kept: [CurvePoint] = []
        for point in sorted.map({ points[$0] }) {
            if kept.last?.threshold == point.threshold { kept[kept.count - 1] = point } else { kept.append(point) }
        }
        return kept
    }

    /// The points of a blob written by ``pack(_:)``; a trailing partial point is ignored.
    static func unpack(_ bytes: [UInt8]) -> [CurvePoint] {
        bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count - bytesPerPoint + 1, by: bytesPerPoint).map { offset in
                func value(_ index: Int) -> Double {
                    Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8 * index, as: UInt64.self)))
                }
                return CurvePoint(threshold: value(0), precision: value(1), recall: value(2))
            }
        }
    }
}
