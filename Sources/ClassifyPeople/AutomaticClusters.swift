import ClassifySupport

/// The automatic half of grouping: density-based clusters (DBSCAN) of the descriptors.
///
/// A face is *core* when at least `minimumFaces - 1` other faces are within the match distance.
/// Core faces within the distance of each other are in one cluster (connected components); a
/// face that is not core joins the cluster of its nearest core face within the distance (ties to
/// the smaller key); every other face waits, unassigned. Each of these is a function of the set
/// of descriptors, not of the order they came in: neighbour counts are sums, and components of a
/// graph do not depend on the order its edges are seen.
///
/// Adding faces only adds pairs: counts grow, faces only ever become core, and clusters only
/// merge. So the state is updated in place: union-find over core faces, plus the similar pairs
/// that touch a face that is not core (a face that is not core has fewer than `minimumFaces - 1`
/// of them, which bounds the memory at that many pairs per face). Adding faces and grouping from
/// scratch reach the same state.
struct AutomaticClusters: Sendable {
    private(set) var matrix: DescriptorMatrix
    let squaredLimit: Float
    let coreNeighbours: Int32
    private(set) var state: SharedState

    struct SharedState: Sendable {
        var neighbourCounts: [Int32] = []
        var parent: [Int32] = []
        /// Pairs with an endpoint that was not core when the pair was seen or settled.
        var pending: [SimilarPair] = []
    }

    init(parameters: GroupingParameters) {
        matrix = DescriptorMatrix(dimension: parameters.dimension)
        squaredLimit = parameters.matchDistance * parameters.matchDistance
        coreNeighbours = Int32(parameters.minimumFaces - 1)
        state = SharedState()
    }

    /// Clusters restored from a snapshot: `rows` of `descriptors` and their saved state.
    init(parameters: GroupingParameters, rows: [Int], of descriptors: DescriptorMatrix, state: SharedState) {
        self.init(parameters: parameters)
        for row in rows { matrix.append(row: row, of: descriptors) }
        self.state = state
    }

    var count: Int { matrix.count }

    func isCore(_ face: Int) -> Bool { state.neighbourCounts[face] >= coreNeighbours }

    /// Adds `rows` of `descriptors` and updates counts and clusters.
    mutating func add(rows: [Int], of descriptors: DescriptorMatrix, threads: Int) {
        let start = matrix.count
        for row in rows { matrix.append(row: row, of: descriptors) }
        state.neighbourCounts.append(contentsOf: repeatElement(0, count: rows.count))
        state.parent.append(contentsOf: (start..<matrix.count).map { Int32($0) })
        let shared = Locked(state)
        let core = coreNeighbours
        state = SharedState()  // the only copy is in `shared` while threads write it
        DistanceScan.pairs(in: matrix, newRows: start..<matrix.count, limit: squaredLimit, threads: threads) { found in
            shared.withLock { state in
                for pair in found {
                    let a = Int(pair.first), b = Int(pair.second)
                    state.neighbourCounts[a] += 1
                    state.neighbourCounts[b] += 1
                    if state.neighbourCounts[a] >= core && state.neighbourCounts[b] >= core {
                        Self.union(a, b, in: &state.parent)
                    } else {
                        state.pending.append(pair)
                    }
                }
            }
        }
        state = shared.withLock { $0 }
        settle()
    }

    /// Unites the pending pairs whose faces are both core now and keeps the rest, sorted so the
    /// stored state does not depend on thread timing.
    private mutating func settle() {
        var kept: [SimilarPair] = []
        for pair in state.pending {
            let a = Int(pair.first), b = Int(pair.second)
            if isCore(a) && isCore(b) {
                Self.union(a, b, in: &state.parent)
            } else {
                kept.append(pair)
            }
        }
        kept.sort { ($0.first, $0.second) < ($1.first, $1.second) }
        state.pending = kept
    }

    static func find(_ face: Int, in parent: inout [Int32]) -> Int {
        var root = face
        while Int(parent[root]) != root { root = Int(parent[root]) }
        var walker = face
        while Int(parent[walker]) != root {
            let next = Int(parent[walker])
            parent[walker] = Int32(root)
            walker = next
        }
        return root
    }

    static func union(_ a: Int, _ b: Int, in parent: inout [Int32]) {
        let rootA = find(a, in: &parent), rootB = find(b, in: &parent)
        guard rootA != rootB else { return }
        // Any rule works for correctness (components are what matter); the smaller index keeps
        // trees shallow enough with path compression.
        if rootA < rootB { parent[rootB] = Int32(rootA) } else { parent[rootA] = Int32(rootB) }
    }

    /// Each face's cluster (a core face's union-find root) or nil, by the rules above; `keys`
    /// break ties between equally near core faces.
    func clusterOfEachFace(keys: [FaceKey]) -> [Int?] {
        var parent = state.parent
        var cluster = [Int?](repeating: nil, count: count)
        for face in 0..<count where isCore(face) { cluster[face] = Self.find(face, in: &parent) }
        var nearestCore = [(core: Int, squaredDistance: Float)?](repeating: nil, count: count)
        for pair in state.pending {
            for (face, other) in [(Int(pair.first), Int(pair.second)), (Int(pair.second), Int(pair.first))]
            where !isCore(face) && isCore(other) {
                if let best = nearestCore[face],
                    (best.squaredDistance, keys[best.core]) <= (pair.squaredDistance, keys[other])
                {
                    continue
                }
                nearestCore[face] = (other, pair.squaredDistance)
            }
        }
        for face in 0..<count where !isCore(face) {
            if let nearest = nearestCore[face] { cluster[face] = cluster[nearest.core] }
        }
        return cluster
    }
}
