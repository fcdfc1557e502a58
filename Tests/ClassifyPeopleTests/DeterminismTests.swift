import ClassifyPeople
import ClassifyTestSupport
import Testing

/// The same faces and corrections give the same people, whatever the order and batches.
@Suite struct DeterminismTests {
    /// People of many sizes, looser and tighter, and strangers.
    static func crowd() -> SyntheticCast {
        var cast = SyntheticCast(seed: 11)
        for (index, size) in [1, 2, 3, 4, 6, 9, 15, 25, 40].enumerated() {
            cast.addPerson(faces: size, spread: index.isMultiple(of: 2) ? 0.025 : 0.033)
        }
        for _ in 0..<30 { cast.addStranger() }
        // Every fifth face too small to group automatically, some faces of unknown size.
        for index in cast.faces.indices where index % 5 < 2 { cast.faces[index].side = index % 5 == 0 ? 30 : 150 }
        return cast
    }

    static func facts(_ cast: SyntheticCast) -> [PeopleCorrection] {
        let p6 = cast.keys(of: 6), p7 = cast.keys(of: 7), p8 = cast.keys(of: 8), p5 = cast.keys(of: 5)
        return [
            PeopleCorrection(.name(p8[0], "Alice"), source: .user, sequence: 1),
            PeopleCorrection(.name(p7[3], "Bob"), source: .imported("xmp"), sequence: 2),
            PeopleCorrection(.merge(p5[0], p6[0]), source: .user, sequence: 3),
            PeopleCorrection(.move(p8[5], to: p7[0]), source: .user, sequence: 4),
            PeopleCorrection(.notThisPerson(p7[9], person: p7[0]), source: .user, sequence: 5),
            PeopleCorrection(.notAFace(p8[7]), source: .user, sequence: 6),
        ]
    }

    /// Adds `faces` in batches cut at random points.
    static func grouped(_ faces: [DescribedFace], corrections: [PeopleCorrection], batchSeed: UInt64) throws -> PeopleGroups {
        var random = SeededRandom(seed: batchSeed)
        var grouper = try PeopleGrouper()
        grouper.corrections = corrections
        var start = 0
        while start < faces.count {
            let end = min(faces.count, start + Int.random(in: 1...40, using: &random))
            try grouper.add(Array(faces[start..<end]))
            start = end
        }
        return grouper.groups()
    }

    @Test func orderAndBatchesDoNotChangeThePeople() throws {
        let cast = Self.crowd()
        let reference = try PeopleGrouping.group(cast.faces)
        #expect(reference.people.count == 6, "the people of 3 faces or more, but the one of 3 with a face too small")
        for seed in 1...6 as ClosedRange<UInt64> {
            let groups = try Self.grouped(cast.shuffled(seed: seed), corrections: [], batchSeed: seed)
            #expect(groups == reference, "shuffle \(seed)")
        }
    }

    @Test func orderOfFactsAndFacesDoesNotChangeThePeople() throws {
        let cast = Self.crowd()
        let facts = Self.facts(cast)
        let reference = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(reference.people.contains { $0.name == "Alice" } && reference.people.contains { $0.name == "Bob" })
        for seed in 1...6 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            let groups = try Self.grouped(cast.shuffled(seed: seed), corrections: facts.shuffled(using: &random), batchSeed: seed + 100)
            #expect(groups == reference, "shuffle \(seed)")
        }
    }

    @Test func correctionsSetAfterTheFacesGiveTheSamePeople() throws {
        let cast = Self.crowd()
        let facts = Self.facts(cast)
        var grouper = try PeopleGrouper()
        try grouper.add(cast.shuffled(seed: 9))
        grouper.corrections = Array(facts.prefix(3))
        _ = grouper.groups()
        grouper.corrections = facts
        #expect(grouper.groups() == (try PeopleGrouping.group(cast.faces, corrections: facts)))
    }

    @Test func hidingAnotherFaceInsteadRegroups() throws {
        let cast = Self.crowd()
        let p8 = cast.keys(of: 8), p7 = cast.keys(of: 7)
        let first = [PeopleCorrection(.notAFace(p8[1]), source: .user, sequence: 1)]
        let second = [PeopleCorrection(.notAFace(p7[2]), source: .user, sequence: 2)]
        var grouper = try PeopleGrouper()
        try grouper.add(cast.faces)
        grouper.corrections = first
        #expect(grouper.groups() == (try PeopleGrouping.group(cast.faces, corrections: first)))
        grouper.corrections = second
        #expect(grouper.groups().hidden == [p7[2]])
        #expect(grouper.groups() == (try PeopleGrouping.group(cast.faces, corrections: second)))
    }

    @Test func oneThreadAndTwoAgree() throws {
        let cast = Self.crowd()
        let one = try PeopleGrouping.group(cast.faces, parameters: GroupingParameters(matchDistance: 0.6, threads: 1))
        let two = try PeopleGrouping.group(cast.shuffled(seed: 3), parameters: GroupingParameters(matchDistance: 0.6, threads: 2))
        #expect(one == two)
    }
}
