import ClassifyPeople
import ClassifyTestSupport
import Testing

/// Bad input is refused with a reason, and nothing of a refused batch is kept.
@Suite struct InputTests {
    static func face(_ number: Int, _ descriptor: [Float]) -> DescribedFace {
        DescribedFace(key: FaceKey(contentHash: "h", faceNumber: number), descriptor: descriptor)
    }

    @Test func aBadFaceRefusesItsWholeBatch() throws {
        var grouper = try PeopleGrouper()
        let good = Self.face(0, Array(repeating: 0.1, count: 128))
        #expect(throws: GroupingError.wrongDimension(FaceKey(contentHash: "h", faceNumber: 1), count: 3, expected: 128)) {
            try grouper.add([good, Self.face(1, [1, 2, 3])])
        }
        var nan = Array(repeating: Float(0.1), count: 128)
        nan[7] = .nan
        #expect(throws: GroupingError.nonFiniteDescriptor(FaceKey(contentHash: "h", faceNumber: 2))) {
            try grouper.add([good, Self.face(2, nan)])
        }
        var huge = Array(repeating: Float(0.1), count: 128)
        huge[0] = 1e6
        #expect(throws: GroupingError.nonFiniteDescriptor(FaceKey(contentHash: "h", faceNumber: 3))) {
            try grouper.add([Self.face(3, huge)])
        }
        #expect(grouper.faceCount == 0)
        try grouper.add([good])
        #expect(throws: GroupingError.duplicateFace(good.key)) { try grouper.add([good]) }
        #expect(throws: GroupingError.duplicateFace(FaceKey(contentHash: "h", faceNumber: 5))) {
            try grouper.add([Self.face(5, good.descriptor), Self.face(5, good.descriptor)])
        }
        #expect(grouper.faceCount == 1)
    }

    @Test func badParametersAreRefused() {
        #expect(throws: GroupingError.self) { try PeopleGrouper(parameters: GroupingParameters(matchDistance: .nan)) }
        #expect(throws: GroupingError.self) { try PeopleGrouper(parameters: GroupingParameters(matchDistance: 0.6, minimumFaces: 1)) }
        #expect(throws: GroupingError.self) { try PeopleGrouper(parameters: GroupingParameters(matchDistance: -1)) }
        #expect(throws: GroupingError.self) { try PeopleGrouper(parameters: GroupingParameters(matchDistance: 0.6, minimumFaceSide: -1)) }
        #expect(throws: GroupingError.self) { try PeopleGrouper(parameters: GroupingParameters(matchDistance: 0.6, minimumFaceSide: .nan)) }
    }

    @Test func nothingGroupsToNothing() throws {
        let groups = try PeopleGrouping.group([])
        #expect(groups == PeopleGroups(people: [], unassigned: [], hidden: [], unappliedCorrections: []))
    }

    @Test func oddFactsAreKeptButNotApplied() throws {
        var cast = SyntheticCast(seed: 31)
        cast.addPerson(faces: 3)
        let keys = cast.keys(of: 0)
        let facts = [
            PeopleCorrection(.name(keys[0], "   "), source: .user, sequence: 1),
            PeopleCorrection(.move(keys[1], to: keys[1]), source: .user, sequence: 2),
            PeopleCorrection(.notThisPerson(keys[2], person: keys[2]), source: .user, sequence: 3),
            PeopleCorrection(.merge(keys[0], FaceKey(contentHash: "gone", faceNumber: 0)), source: .user, sequence: 4),
        ]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.map(\.faces) == [keys])
        #expect(Set(groups.unappliedCorrections.map(\.sequence)) == [1, 2, 3, 4])
    }

    @Test func identicalDescriptorsGroupTogether() throws {
        let same = Array(repeating: Float(0.05), count: 128)
        let faces = (0..<3).map { DescribedFace(key: FaceKey(contentHash: "photo\($0)", faceNumber: 0), descriptor: same) }
        #expect(try PeopleGrouping.group(faces).people.map(\.faces) == [faces.map(\.key)])
    }
}
