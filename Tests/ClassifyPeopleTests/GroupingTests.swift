import ClassifyPeople
import ClassifyTestSupport
import Testing

/// Automatic grouping on synthetic descriptors whose people are known.
@Suite struct GroupingTests {
    @Test func facesOfOnePersonAcrossNoiseAreOnePerson() throws {
        var cast = SyntheticCast(seed: 1)
        for size in [3, 5, 8, 12, 20] { cast.addPerson(faces: size) }
        let groups = try PeopleGrouping.group(cast.faces)
        #expect(groups.people.count == 5)
        for person in 0..<5 {
            #expect(groups.people.contains { $0.faces == cast.keys(of: person) }, "person \(person) exactly")
        }
        #expect(groups.unassigned.isEmpty)
        #expect(groups.people.allSatisfy { $0.name == nil && $0.confirmedFaces.isEmpty })
    }

    @Test func twoPeopleFarApartAreNeverMerged() throws {
        var cast = SyntheticCast(seed: 2)
        let a = cast.addPerson(faces: 60, spread: 0.035)
        let b = cast.addPerson(faces: 60, spread: 0.035)
        #expect(SyntheticFaces.distance(cast.centers[a], cast.centers[b]) > 0.9, "the premise: far apart")
        let groups = try PeopleGrouping.group(cast.faces)
        #expect(groups.people.map(\.faces) == [cast.keys(of: a), cast.keys(of: b)].sorted { $0[0] < $1[0] })
    }

    /// Faces of one photo are different people: however near, they never count as each other's
    /// neighbours (a wedding photo's three faces, one of them small and blurred, used to be one
    /// person), but each can still join a person seen in other photos.
    @Test func facesOfOnePhotoAreNeverEachOthersNeighbours() throws {
        var random = SeededRandom(seed: 9)
        let near = SyntheticFaces.center(using: &random)
        func face(_ photo: String, _ number: Int) -> DescribedFace {
            DescribedFace(key: FaceKey(contentHash: photo, faceNumber: number), descriptor: near)
        }
        let wedding = (0..<4).map { face("wedding", $0) }
        var groups = try PeopleGrouping.group(wedding)
        #expect(groups.people.isEmpty && groups.unassigned == wedding.map(\.key))
        // Three photos of one face make a person; grouped incrementally or at once, the same.
        let portraits = ["a", "b", "c"].map { face($0, 0) }
        groups = try PeopleGrouping.group(portraits)
        #expect(groups.people.map(\.faces) == [portraits.map(\.key)])
        var grouper = try PeopleGrouper()
        try grouper.add(wedding)
        try grouper.add(portraits)
        #expect(grouper.groups() == (try PeopleGrouping.group(wedding + portraits)))
    }

    /// Faces whose box is under `minimumFaceSide` (40 px) neither make people nor are drawn to
    /// named ones: their descriptors, from chips upscaled four times or more, match strangers. A
    /// fact still places them, and a face of unknown size groups as before.
    @Test func facesTooSmallToRecognizeWaitUnlessAFactPlacesThem() throws {
        var cast = SyntheticCast(seed: 31)
        let person = cast.addPerson(faces: 6)
        for index in cast.faces.indices { cast.faces[index].side = index < 3 ? 39.5 : 64 }
        let keys = cast.keys(of: person), small = Array(keys.prefix(3)), large = Array(keys.suffix(3))
        var groups = try PeopleGrouping.group(cast.faces)
        #expect(groups.people.map(\.faces) == [large])
        #expect(groups.unassigned == small)
        // Three small faces alone are nobody; named, one is placed, the others still wait.
        groups = try PeopleGrouping.group(Array(cast.faces.prefix(3)))
        #expect(groups.people.isEmpty && groups.unassigned == small)
        let facts = [
            PeopleCorrection(.name(large[0], "Fay"), source: .user, sequence: 1),
            PeopleCorrection(.move(small[1], to: large[0]), source: .user, sequence: 2),
        ]
        groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.map(\.faces) == [(large + [small[1]]).sorted()])
        #expect(groups.unassigned == [small[0], small[2]])
        // With no floor, or no sizes, all six are one person.
        #expect(try PeopleGrouping.group(cast.faces, parameters: GroupingParameters(matchDistance: 0.6, minimumFaceSide: 0)).people.map(\.faces) == [keys])
        let unsized = cast.faces.map { DescribedFace(key: $0.key, descriptor: $0.descriptor) }
        #expect(try PeopleGrouping.group(unsized).people.map(\.faces) == [keys])
    }

    @Test func lonelyFacesWaitUntilThreeAreSimilar() throws {
        var cast = SyntheticCast(seed: 3)
        let person = cast.addPerson(faces: 2)
        for _ in 0..<5 { cast.addStranger() }
        var grouper = try PeopleGrouper()
        try grouper.add(cast.faces)
        #expect(grouper.groups().people.isEmpty)
        #expect(grouper.groups().unassigned.count == 7)

        let third = cast.addFaces(of: person, count: 1)
        try grouper.add(cast.faces.filter { third.contains($0.key) })
        #expect(grouper.groups().people.map(\.faces) == [cast.keys(of: person)])
        #expect(grouper.groups().unassigned.count == 5)
    }

    @Test func theMatchDistanceIsAParameter() throws {
        var cast = SyntheticCast(seed: 4)
        cast.addPerson(faces: 6, spread: 0.025)  // faces about 0.4 apart
        let loose = try PeopleGrouping.group(cast.faces)
        let strict = try PeopleGrouping.group(cast.faces, parameters: GroupingParameters(matchDistance: 0.2))
        #expect(loose.people.count == 1)
        #expect(strict.people.isEmpty && strict.unassigned.count == 6)
    }

    @Test func minimumFacesIsAParameter() throws {
        var cast = SyntheticCast(seed: 5)
        cast.addPerson(faces: 3)
        #expect(try PeopleGrouping.group(cast.faces).people.count == 1)
        #expect(try PeopleGrouping.group(cast.faces, parameters: GroupingParameters(matchDistance: 0.6, minimumFaces: 4)).people.isEmpty)
    }

    @Test func aFaceBetweenTwoPeopleJoinsTheOneItIsNear() throws {
        var cast = SyntheticCast(seed: 6)
        let a = cast.addPerson(faces: 10)
        let b = cast.addPerson(faces: 10)
        // A face between the two, a little nearer to A.
        let between = zip(cast.centers[a], cast.centers[b]).map { 0.62 * $0 + 0.38 * $1 }
        let key = FaceKey(contentHash: "between", faceNumber: 0)
        let faces = cast.faces + [DescribedFace(key: key, descriptor: between)]
        let groups = try PeopleGrouping.group(faces)
        #expect(groups.people.count == 2)
        #expect(groups.person(containing: key)?.faces.count == 11)
        #expect(groups.person(containing: key)?.faces.contains(cast.keys(of: a)[0]) == true)
    }

    @Test func peopleAreIdentifiedByTheirEarliestFace() throws {
        var cast = SyntheticCast(seed: 7)
        cast.addPerson(faces: 4)
        let groups = try PeopleGrouping.group(cast.shuffled(seed: 1))
        #expect(groups.people.map(\.id) == [PersonID(anchor: cast.keys(of: 0)[0])])
    }
}
