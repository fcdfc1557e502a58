/// Descriptors as fp16 rows, with each row's squared norm and the photo it is in, for blocked
/// distance scans.
///
/// Distances are computed from the fp16 values on both sides, widened to float, with one dot
/// product kernel (`DotTile`), so d(a, b) and d(b, a) are the same float bit for bit: a pair's
/// verdict never depends on which face was the query, i.e. on the order faces arrived in.
struct DescriptorMatrix: Sendable {
    let dimension: Int
    private(set) var halves: [UInt16] = []
    private(set) var squaredNorms: [Float] = []
    /// Each row's photo (``photo(of:)``): faces of one photo are never neighbours.
    private(set) var photos: [UInt64] = []

    init(dimension: Int) { self.dimension = dimension }

    var count: Int { squaredNorms.count }

    /// A number for the photo a face is in: FNV-1a of its content hash (faces of one image share it).
    static func photo(of key: FaceKey) -> UInt64 {
        var hash = FNV1a()
        hash.mix(key.contentHash.utf8)
        return hash.value
    }

    /// Appends the descriptor, already checked for length and range, of a face of `photo`.
    mutating func append(_ descriptor: [Float], photo: UInt64) {
        let start = halves.count
        photos.append(photo)
        halves.append(contentsOf: descriptor.lazy.map(HalfFloat.bits))
        var norm: Float = 0
        for k in 0..<dimension {
            let value = HalfFloat.float(halves[start + k])
            norm += value * value
        }
        squaredNorms.append(norm)
    }

    /// Appends row `index` of `other` as it is (same fp16 values, same norm).
    mutating func append(row index: Int, of other: DescriptorMatrix) {
        halves.append(contentsOf: other.halves[(index * dimension)..<((index + 1) * dimension)])
        squaredNorms.append(other.squaredNorms[index])
        photos.append(other.photos[index])
    }

    /// Row `index` widened to floats into `destination`.
    func widen(_ index: Int, into destination: UnsafeMutablePointer<Float>) {
        let base = index * dimension
        for k in 0..<dimension { destination[k] = HalfFloat.float(halves[base + k]) }
    }

    /// |a|^2 + |b|^2 - 2 a.b, summed in one fixed order (symmetric in a and b).
    @inline(__always)
    static func squaredDistance(_ normA: Float, _ normB: Float, _ dot: Float) -> Float {
        max((normA + normB) - 2 * dot, 0)
    }
}
