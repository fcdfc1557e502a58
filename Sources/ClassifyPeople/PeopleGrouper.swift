import Foundation

/// Groups faces into people, one batch of faces at a time, under stored corrections.
///
/// The result is a function of the set of faces and the set of corrections: adding faces in any
/// order or batches, or all at once, gives the same `groups()` (see `PeopleGrouping` for the
/// rules). Adding faces is incremental (only pairs involving the new faces are scanned); changing
/// which faces are hidden or moved rebuilds the automatic clusters.
///
/// ```swift
/// var grouper = try PeopleGrouper()
/// try grouper.add(newFaces)
/// grouper.corrections = storedFacts
/// let groups = grouper.groups()
/// ```
public struct PeopleGrouper: Sendable {
    /// The version of the grouping's rules: a grouping stored under other rules is made again.
    /// 2: faces of one photo are never each other's neighbours; faces smaller than
    /// ``GroupingParameters/minimumFaceSide`` are left out of automatic grouping.
    /// Usage: `PeopleGrouper.rulesVersion`
    public static let rulesVersion = 2

    /// Usage: `grouper.parameters.matchDistance`
    public let parameters: GroupingParameters
    /// The facts the grouping respects; setting them may rebuild the automatic clusters.
    /// Usage: `grouper.corrections = facts`
    public var corrections: [PeopleCorrection] = [] {
        didSet { refreshClusters(newFaces: 0..<0) }
    }
    private(set) var keys: [FaceKey] = []
    private var index: [FaceKey: Int] = [:]
    private(set) var descriptors: DescriptorMatrix
    private(set) var clusters: AutomaticClusters
    /// Cluster row -> face index.
    private(set) var clusteredFaces: [Int] = []
    private(set) var excluded: Set<Int> = []
    /// Faces smaller than `parameters.minimumFaceSide`: never in an automatic cluster.
    private(set) var small: Set<Int> = []

    /// Puts back the state of a snapshot whose descriptors are `descriptors` (see ``GroupingSnapshot``).
    mutating func restore(keys: [FaceKey], descriptors: DescriptorMatrix, small: Set<Int>, snapshot: GroupingSnapshot) {
        self.keys = keys
        self.small = small
        index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        self.descriptors = descriptors
        clusteredFaces = snapshot.clusteredFaces.map { Int($0) }
        excluded = Set(snapshot.excluded.map { Int($0) })
        clusters = AutomaticClusters(
            parameters: parameters, rows: clusteredFaces, of: descriptors,
            state: AutomaticClusters.SharedState(neighbourCounts: snapshot.neighbourCounts, parent: snapshot.parent, pending: snapshot.pending))
    }

    /// Usage: `var grouper = try PeopleGrouper(parameters: GroupingParameters(matchDistance: 0.5))`
    public init(parameters: GroupingParameters = GroupingParameters()) throws {
        guard parameters.matchDistance.isFinite, parameters.matchDistance > 0 else {
            throw GroupingError.invalidParameters("matchDistance must be a positive number")
        }
        guard parameters.minimumFaces >= 2 else { throw GroupingError.invalidParameters("minimumFaces must be at least 2") }
        guard parameters.dimension >= 1 else { throw GroupingError.invalidParameters("dimension must be at least 1") }
        guard parameters.minimumFaceSide.isFinite, parameters.minimumFaceSide >= 0 else {
            throw GroupingError.invalidParameters("minimumFaceSide must be a number of pixels, 0 or more")
        }
        self.parameters = parameters
        descriptors = DescriptorMatrix(dimension: parameters.dimension)
        clusters = AutomaticClusters(parameters: parameters)
    }

    /// Faces added so far. Usage: `grouper.faceCount`
    public var faceCount: Int { keys.count }

    /// Adds faces; all or none (a bad face throws before anything is added).
    ///
    /// ```swift
    /// try grouper.add([DescribedFace(key: key, descriptor: descriptor)])
    /// ```
    public mutating func add(_ faces: [DescribedFace]) throws {
        var seen: Set<FaceKey> = []
        for face in faces {
            guard face.descriptor.count == parameters.dimension else {
                throw GroupingError.wrongDimension(face.key, count: face.descriptor.count, expected: parameters.dimension)
            }
            guard face.descriptor.allSatisfy({ $0.isFinite && abs($0) <= HalfFloat.largestFinite }) else {
                throw GroupingError.nonFiniteDescriptor(face.key)
            }
            guard index[face.key] == nil, seen.insert(face.key).inserted else { throw GroupingError.duplicateFace(face.key) }
        }
        let start = keys.count
        for face in faces {
            if isSmall(face) { small.insert(keys.count) }
            index[face.key] = keys.count
            keys.append(face.key)
            descriptors.append(face.descriptor, photo: DescriptorMatrix.photo(of: face.key))
        }
        refreshClusters(newFaces: start..<keys.count)
    }

    /// Whether `face` is too small to group automatically.
    func isSmall(_ face: DescribedFace) -> Bool {
        face.side.map { $0 < parameters.minimumFaceSide } ?? false
    }

    /// Brings the automatic clusters up to date: adds the new faces, or rebuilds them when the
    /// corrections now exclude a different set of the earlier faces.
    private mutating func refreshClusters(newFaces: Range<Int>) {
        let nowExcluded = ResolvedCorrections(corrections, index: index, faceCount: keys.count).excluded
        // The faces the clusters already hold: all of them when only the corrections changed.
        let earlier = 0..<(newFaces.isEmpty ? keys.count : newFaces.lowerBound)
        let before = excluded.filter { earlier.contains($0) }, after = nowExcluded.filter { earlier.contains($0) }
        excluded = nowExcluded
        let threads = parameters.threads > 0 ? parameters.threads : ProcessInfo.processInfo.activeProcessorCount
        var rows: Range<Int> = newFaces
        if before != after {
            clusters = AutomaticClusters(parameters: parameters)
            clusteredFaces = []
            rows = 0..<keys.count
        }
        let added = rows.filter { !excluded.contains($0) && !small.contains($0) }
        guard !added.isEmpty else { return }
        clusters.add(rows: added, of: descriptors, threads: threads)
        clusteredFaces.append(contentsOf: added)
    }

    /// The people the faces and corrections make now.
    ///
    /// ```swift
    /// for person in grouper.groups().people { print(person.id, person.faces.count) }
    /// ```
    public func groups() -> PeopleGroups {
        var resolved = ResolvedCorrections(corrections, index: index, faceCount: keys.count)
        var clusterOfFace = [Int?](repeating: nil, count: keys.count)
        let clusteredKeys = clusteredFaces.map { keys[$0] }
        for (row, cluster) in clusters.clusterOfEachFace(keys: clusteredKeys).enumerated() {
            if let cluster { clusterOfFace[clusteredFaces[row]] = clusteredFaces[cluster] }
        }
        return PeopleAssembly(
            keys: keys, descriptors: descriptors, clusterOfFace: clusterOfFace, small: small, parameters: parameters
        ).assemble(&resolved)
    }
}

/// Groups faces into people in one call: the pure function behind `PeopleGrouper`.
///
/// Rules, applied to the set of faces and facts (never to their order):
/// 1. Automatic clusters (DBSCAN): a face with at least `minimumFaces - 1` others within
///    `matchDistance` (in other photos) is core; core faces within the distance of each other are
///    one cluster; any other face joins the cluster of its nearest core face within the distance.
///    Hidden and moved faces take no part, nor faces smaller than `minimumFaceSide`.
/// 2. Corrections (`PeopleCorrection`) are applied by priority, then recency, into confirmed
///    groups: named faces (one group per name), merged faces, moved faces with their target.
/// 3. A cluster holding confirmed faces joins their group; with several groups, each of its other
///    faces joins the group of its nearest confirmed face (moved faces do not attract). A face in
///    no cluster, not too small, joins the group of its nearest confirmed face within the distance.
///    No face joins a group a "not this person" fact bars it from, nor one holding a confirmed face
///    of its own photo; confirmed faces never move.
/// 4. A cluster with no confirmed face is an automatic person, if at least `minimumFaces` faces
///    remain once "not this person" facts have taken their faces out. The rest wait, unassigned.
///
/// ```swift
/// let groups = try PeopleGrouping.group(faces, corrections: facts)
/// ```
public enum PeopleGrouping {
    /// Usage: `let groups = try PeopleGrouping.group(faces, corrections: facts, parameters: parameters)`
    public static func group(
        _ faces: [DescribedFace], corrections: [PeopleCorrection] = [],
        parameters: GroupingParameters = GroupingParameters()
    ) throws -> PeopleGroups {
        var grouper = try PeopleGrouper(parameters: parameters)
        grouper.corrections = corrections
        try grouper.add(faces)
        return grouper.groups()
    }
}
