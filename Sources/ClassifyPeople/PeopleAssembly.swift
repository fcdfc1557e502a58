/// Steps 3 and 4 of `PeopleGrouping`: automatic clusters and confirmed groups made into people.
struct PeopleAssembly {
    let keys: [FaceKey]
    let descriptors: DescriptorMatrix
    /// Each face's automatic cluster (nil: hidden, moved, or in no cluster).
    let clusterOfFace: [Int?]
    /// Faces too small to group automatically: they wait unless a fact places them.
    let small: Set<Int>
    let parameters: GroupingParameters

    /// Faces per distance call, to bound the distance tile.
    private static let queryChunk = 256

    func assemble(_ resolved: inout ResolvedCorrections) -> PeopleGroups {
        let faceCount = keys.count
        var groupOfFace = [Int?](repeating: nil, count: faceCount)
        for face in resolved.confirmed { groupOfFace[face] = resolved.group(of: face) }
        let attracting = resolved.confirmed.subtracting(resolved.moved).sorted { keys[$0] < keys[$1] }

        var membersOfCluster: [Int: [Int]] = [:]
        var outsideClusters: [Int] = []
        var unassigned: [Int] = []
        for face in 0..<faceCount where !resolved.hidden.contains(face) && !resolved.confirmed.contains(face) {
            if let cluster = clusterOfFace[face] {
                membersOfCluster[cluster, default: []].append(face)
            } else if small.contains(face) {
                unassigned.append(face)
            } else {
                outsideClusters.append(face)
            }
        }
        var pinsOfCluster: [Int: [Int]] = [:]
        for face in attracting { if let cluster = clusterOfFace[face] { pinsOfCluster[cluster, default: []].append(face) } }

        var automatic: [Int: [Int]] = [:]
        for (cluster, members) in membersOfCluster {
            guard let pins = pinsOfCluster[cluster] else {
                automatic[cluster] = members
                continue
            }
            for (face, group) in zip(members, nearestAllowedGroups(members, pins: pins, within: nil, &resolved)) {
                if let group { groupOfFace[face] = group } else { unassigned.append(face) }
            }
        }
        let limit = parameters.matchDistance * parameters.matchDistance
        for (face, group) in zip(outsideClusters, nearestAllowedGroups(outsideClusters, pins: attracting, within: limit, &resolved)) {
            if let group { groupOfFace[face] = group } else { unassigned.append(face) }
        }

        // "Not this person" inside an automatic cluster takes the fact's face out of it.
        for pair in resolved.separated {
            guard let cluster = clusterOfFace[pair.face], clusterOfFace[pair.person] == cluster,
                automatic[cluster]?.contains(pair.person) == true, let members = automatic[cluster],
                let position = members.firstIndex(of: pair.face)
            else { continue }
            automatic[cluster]!.remove(at: position)
            unassigned.append(pair.face)
        }

        var drafts: [Draft] = []
        var facesOfGroup: [Int: [Int]] = [:]
        for face in 0..<faceCount { if let group = groupOfFace[face] { facesOfGroup[group, default: []].append(face) } }
        for (group, faces) in facesOfGroup {
            drafts.append(
                Draft(
                    faces: faces, confirmed: faces.filter(resolved.confirmed.contains),
                    name: resolved.name(ofGroup: group), nameRank: resolved.nameRank(ofGroup: group)))
        }
        var stillUnassigned = Set(unassigned)
        for (_, members) in automatic {
            if members.count >= parameters.minimumFaces {
                drafts.append(Draft(faces: members, confirmed: [], name: nil, nameRank: nil))
            } else {
                stillUnassigned.formUnion(members)
            }
        }
        let people = merged(drafts, unassigned: &stillUnassigned, &resolved)
        return PeopleGroups(
            people: people.sorted { $0.id < $1.id },
            unassigned: stillUnassigned.map { keys[$0] }.sorted(),
            hidden: resolved.hidden.map { keys[$0] }.sorted(),
            unappliedCorrections: resolved.unapplied.sorted(by: PeopleCorrection.applicationOrder))
    }

    /// A person before merges.
    private struct Draft {
        var faces: [Int]
        var confirmed: [Int]
        var name: String?
        var nameRank: Int?
    }

    /// Applies the merge facts to the people (person-level: whatever people the two faces are in
    /// now), in application order, unless a kept "not this person" fact would end up inside one
    /// person; a face in no person joins the other's. Both faces become confirmed.
    private func merged(_ initial: [Draft], unassigned: inout Set<Int>, _ resolved: inout ResolvedCorrections) -> [Person] {
        var drafts = initial
        var draftOfFace = [Int?](repeating: nil, count: keys.count)
        for (index, draft) in drafts.enumerated() { for face in draft.faces { draftOfFace[face] = index } }
        var parent = Array(drafts.indices)
        func find(_ draft: Int) -> Int {
            var root = draft
            while parent[root] != root { root = parent[root] }
            return root
        }
        func root(of face: Int) -> Int? { draftOfFace[face].map(find) }
        for merge in resolved.merges {
            let rootA = root(of: merge.first), rootB = root(of: merge.second)
            // A side is a person's faces, or the lone face when it is in no person.
            func onSide(_ face: Int, _ sideRoot: Int?, _ sideFace: Int) -> Bool {
                if let sideRoot { return root(of: face) == sideRoot }
                return face == sideFace
            }
            let sameAlready = rootA != nil && rootA == rootB
            let blocked = !sameAlready && resolved.separated.contains { pair in
                (onSide(pair.face, rootA, merge.first) && onSide(pair.person, rootB, merge.second))
                    || (onSide(pair.face, rootB, merge.second) && onSide(pair.person, rootA, merge.first))
            }
            if blocked || merge.first == merge.second {
                resolved.unapplied.append(merge.fact)
                continue
            }
            var roots: [Int] = []
            for (face, existing) in [(merge.first, rootA), (merge.second, rootB)] {
                if let existing {
                    roots.append(existing)
                } else {
                    unassigned.remove(face)
                    drafts.append(Draft(faces: [face], confirmed: [], name: nil, nameRank: nil))
                    parent.append(drafts.count - 1)
                    draftOfFace[face] = drafts.count - 1
                    roots.append(drafts.count - 1)
                }
            }
            for face in [merge.first, merge.second] { drafts[draftOfFace[face]!].confirmed.append(face) }
            if roots[0] != roots[1] { parent[max(roots[0], roots[1])] = min(roots[0], roots[1]) }
        }
        var byRoot: [Int: [Draft]] = [:]
        for index in drafts.indices { byRoot[find(index), default: []].append(drafts[index]) }
        return byRoot.values.map { parts in
            let faces = parts.flatMap(\.faces).map { keys[$0] }.sorted()
            let confirmed = Set(parts.flatMap(\.confirmed)).map { keys[$0] }.sorted()
            let named = parts.filter { $0.nameRank != nil }.min { $0.nameRank! < $1.nameRank! }
            return Person(
                id: PersonID(anchor: confirmed.first ?? faces[0]), name: named?.name, faces: faces,
                confirmedFaces: confirmed)
        }
    }

    /// For each face, the group of its nearest pin (by distance, then key) that no "not this
    /// person" fact bars it from, nor a pin of the face's own photo (one photo's faces are
    /// different people), optionally only pins closer than `within` (squared distance).
    private func nearestAllowedGroups(
        _ faces: [Int], pins: [Int], within limit: Float?, _ resolved: inout ResolvedCorrections
    ) -> [Int?] {
        guard !pins.isEmpty else { return faces.map { _ in nil } }
        var result: [Int?] = []
        result.reserveCapacity(faces.count)
        let pinGroups = pins.map { resolved.group(of: $0)! }
        for chunkStart in stride(from: 0, to: faces.count, by: Self.queryChunk) {
            let chunk = Array(faces[chunkStart..<min(chunkStart + Self.queryChunk, faces.count)])
            let distances = DistanceScan.distances(in: descriptors, queries: chunk, candidates: pins)
            for (row, face) in chunk.enumerated() {
                var barred = resolved.separated.isEmpty ? [] : resolved.barredGroups(for: face)
                let photo = descriptors.photos[face]
                for (column, pin) in pins.enumerated() where descriptors.photos[pin] == photo { barred.insert(pinGroups[column]) }
                var best: (distance: Float, key: FaceKey, group: Int)?
                for (column, pin) in pins.enumerated() {
                    let distance = distances[row * pins.count + column]
                    if let limit, !(distance < limit) { continue }
                    if barred.contains(pinGroups[column]) { continue }
                    if let current = best, (current.distance, current.key) <= (distance, keys[pin]) { continue }
                    best = (distance, keys[pin], pinGroups[column])
                }
                result.append(best?.group)
            }
        }
        return result
    }
}
