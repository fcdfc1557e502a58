import Foundation

/// What a ``PeopleGrouper`` knows about its faces, to continue in a later process: the faces'
/// keys in the grouper's order, a checksum of their descriptors, and the automatic clusters
/// (neighbour counts, union-find, the pending pairs). Restored with the same faces' descriptors,
/// the grouper adds new faces as if it had never stopped (only pairs with the new faces are
/// measured); a snapshot whose faces are gone or changed, or that was taken with other
/// parameters, restores nothing and grouping starts from scratch.
///
/// ```swift
/// let data = grouper.snapshot().encoded()
/// var next = try PeopleGrouper(restoring: try GroupingSnapshot(decoding: data), faces: faces) ?? PeopleGrouper()
/// ```
public struct GroupingSnapshot: Sendable, Hashable {
    var matchDistance: Float
    var minimumFaces: Int32
    var minimumFaceSide: Double
    var dimension: Int32
    /// The faces in the grouper's order. Usage: `snapshot.keys.count`
    public internal(set) var keys: [FaceKey]
    /// FNV-1a over the faces' fp16 descriptors in `keys` order.
    var checksum: UInt64
    /// Cluster row -> face index.
    var clusteredFaces: [Int32]
    var neighbourCounts: [Int32]
    var parent: [Int32]
    var pending: [SimilarPair]
    var excluded: [Int32]

    static let magic = Array("CPGS".utf8)
    /// 2: faces of one photo are never neighbours (version 1's counts and pairs included them).
    static let version: UInt8 = 2

    /// The bytes stored in the index. Usage: `let data = snapshot.encoded()`
    public func encoded() -> Data {
        var data = Data(Self.magic)
        data.append(Self.version)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        put(matchDistance.bitPattern)
        put(minimumFaces)
        put(minimumFaceSide.bitPattern)
        put(dimension)
        put(checksum)
        put(Int32(keys.count))
        for key in keys {
            let hash = Array(key.contentHash.utf8)
            put(UInt16(hash.count))
            data.append(contentsOf: hash)
            put(Int32(key.faceNumber))
        }
        for list in [clusteredFaces, neighbourCounts, parent, excluded] {
            put(Int32(list.count))
            for value in list { put(value) }
        }
        put(Int32(pending.count))
        for pair in pending {
            put(pair.first)
            put(pair.second)
            put(pair.squaredDistance.bitPattern)
        }
        return data
    }

    /// Reads ``encoded()``'s bytes; throws ``GroupingError/invalidSnapshot(_:)`` for anything else.
    /// Usage: `let snapshot = try GroupingSnapshot(decoding: data)`
    public init(decoding data: Data) throws {
        var reader = Reader(bytes: [UInt8](data))
        guard try reader.bytes(4) == Self.magic, try reader.bytes(1) == [Self.version] else {
            throw GroupingError.invalidSnapshot("not a people grouping snapshot of this version")
        }
        matchDistance = Float(bitPattern: try reader.integer(UInt32.self))
        minimumFaces = try reader.integer(Int32.self)
        minimumFaceSide = Double(bitPattern: try reader.integer(UInt64.self))
        dimension = try reader.integer(Int32.self)
        checksum = try reader.integer(UInt64.self)
        let count = try reader.count()
        keys = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            let length = Int(try reader.integer(UInt16.self))
            let hash = String(decoding: try reader.bytes(length), as: UTF8.self)
            keys.append(FaceKey(contentHash: hash, faceNumber: Int(try reader.integer(Int32.self))))
        }
        var lists: [[Int32]] = []
        for _ in 0..<4 { lists.append(try (0..<reader.count()).map { _ in try reader.integer(Int32.self) }) }
        (clusteredFaces, neighbourCounts, parent, excluded) = (lists[0], lists[1], lists[2], lists[3])
        pending = try (0..<reader.count()).map { _ in
            SimilarPair(
                first: try reader.integer(Int32.self), second: try reader.integer(Int32.self),
                squaredDistance: Float(bitPattern: try reader.integer(UInt32.self)))
        }
        guard reader.isAtEnd, neighbourCounts.count == clusteredFaces.count, parent.count == clusteredFaces.count,
            clusteredFaces.allSatisfy({ $0 >= 0 && Int($0) < count }), excluded.allSatisfy({ $0 >= 0 && Int($0) < count }),
            parent.allSatisfy({ $0 >= 0 && Int($0) < parent.count }),
            pending.allSatisfy({ $0.first >= 0 && $0.second >= 0 && Int($0.first) < parent.count && Int($0.second) < parent.count })
        else { throw GroupingError.invalidSnapshot("its parts do not fit together") }
        guard Self.parentsReachRoots(parent) else { throw GroupingError.invalidSnapshot("its clusters loop") }
    }

    /// Whether every union-find chain ends at a root (no cycle), in linear time.
    static func parentsReachRoots(_ parent: [Int32]) -> Bool {
        var state = [UInt8](repeating: 0, count: parent.count)  // 0 unseen, 1 on the current path, 2 reaches a root
        for start in parent.indices where state[start] == 0 {
            var path: [Int] = []
            var node = start
            while state[node] == 0 && Int(parent[node]) != node {
                state[node] = 1
                path.append(node)
                node = Int(parent[node])
            }
            if state[node] == 1 { return false }
            state[node] = 2
            for visited in path { state[visited] = 2 }
        }
        return true
    }

    init(
        parameters: GroupingParameters, keys: [FaceKey], checksum: UInt64, clusteredFaces: [Int32], neighbourCounts: [Int32],
        parent: [Int32], pending: [SimilarPair], excluded: [Int32]
    ) {
        matchDistance = parameters.matchDistance
        minimumFaces = Int32(parameters.minimumFaces)
        minimumFaceSide = parameters.minimumFaceSide
        dimension = Int32(parameters.dimension)
        (self.keys, self.checksum, self.clusteredFaces, self.neighbourCounts, self.parent, self.pending, self.excluded) =
            (keys, checksum, clusteredFaces, neighbourCounts, parent, pending, excluded)
    }

    /// FNV-1a over fp16 rows.
    static func checksum(of halves: [UInt16]) -> UInt64 {
        var hash = FNV1a()
        for half in halves {
            hash.mix(UInt8(half & 0xFF))
            hash.mix(UInt8(half >> 8))
        }
        return hash.value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, position + count <= bytes.count else { throw GroupingError.invalidSnapshot("it ends too early") }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            let raw = try bytes(MemoryLayout<T>.size)
            return raw.reversed().reduce(T(0)) { ($0 << 8) | T($1) }
        }

        mutating func count() throws -> Int {
            let value = Int(try integer(Int32.self))
            guard value >= 0, value <= bytes.count else { throw GroupingError.invalidSnapshot("a count is out of range") }
            return value
        }
    }
}

extension PeopleGrouper {
    /// The grouper's state, to continue from in another process (see ``GroupingSnapshot``).
    ///
    /// ```swift
    /// let data = grouper.snapshot().encoded()
    /// ```
    public func snapshot() -> GroupingSnapshot {
        GroupingSnapshot(
            parameters: parameters, keys: keys, checksum: GroupingSnapshot.checksum(of: descriptors.halves),
            clusteredFaces: clusteredFaces.map { Int32($0) }, neighbourCounts: clusters.state.neighbourCounts, parent: clusters.state.parent,
            pending: clusters.state.pending, excluded: excluded.sorted().map { Int32($0) })
    }

    /// A grouper continuing from `snapshot`, with the descriptors of its faces taken from `faces`
    /// (which may hold more: add those afterwards); nil when a face of the snapshot is not among
    /// `faces`, its descriptor changed, or the parameters differ. Set the corrections next (the
    /// automatic clusters are rebuilt only if they exclude other faces than the snapshot did).
    ///
    /// ```swift
    /// if var grouper = try PeopleGrouper(restoring: snapshot, faces: faces) { grouper.corrections = facts }
    /// ```
    public init?(restoring snapshot: GroupingSnapshot, faces: [DescribedFace], parameters: GroupingParameters = GroupingParameters()) throws {
        guard snapshot.matchDistance == parameters.matchDistance, Int(snapshot.minimumFaces) == parameters.minimumFaces,
            snapshot.minimumFaceSide == parameters.minimumFaceSide, Int(snapshot.dimension) == parameters.dimension
        else { return nil }
        try self.init(parameters: parameters)
        var byKey: [FaceKey: DescribedFace] = [:]
        byKey.reserveCapacity(faces.count)
        for face in faces { byKey[face.key] = face }
        var restored = DescriptorMatrix(dimension: parameters.dimension)
        var small: Set<Int> = []
        for (row, key) in snapshot.keys.enumerated() {
            guard let face = byKey[key], case let descriptor = face.descriptor, descriptor.count == parameters.dimension,
                descriptor.allSatisfy({ $0.isFinite && abs($0) <= HalfFloat.largestFinite })
            else { return nil }
            restored.append(descriptor, photo: DescriptorMatrix.photo(of: key))
            if isSmall(face) { small.insert(row) }
        }
        guard GroupingSnapshot.checksum(of: restored.halves) == snapshot.checksum else { return nil }
        self.restore(keys: snapshot.keys, descriptors: restored, small: small, snapshot: snapshot)
    }
}
