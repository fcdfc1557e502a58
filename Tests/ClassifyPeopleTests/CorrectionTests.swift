import ClassifyPeople
import ClassifyTestSupport
import Testing

/// Every kind of correction is respected, and still is after faces are added and people regrouped.
@Suite struct CorrectionTests {
    static func twoPeople(seed: UInt64 = 21) -> SyntheticCast {
        var cast = SyntheticCast(seed: seed)
        cast.addPerson(faces: 8)
        cast.addPerson(faces: 8)
        return cast
    }

    @Test func aNamedFaceNamesItsPersonAndNewFacesJoinIt() throws {
        var cast = Self.twoPeople()
        let alice = cast.keys(of: 0)
        var grouper = try PeopleGrouper()
        grouper.corrections = [PeopleCorrection(.name(alice[2], "Alice"), source: .user, sequence: 1)]
        try grouper.add(cast.faces)
        let named = try #require(grouper.groups().people.first { $0.name == "Alice" })
        #expect(named.faces == alice)
        #expect(named.confirmedFaces == [alice[2]])
        #expect(named.id == PersonID(anchor: alice[2]), "a confirmed person is anchored on its confirmed faces")

        let later = cast.addFaces(of: 0, count: 3)
        try grouper.add(cast.faces.filter { later.contains($0.key) })
        #expect(grouper.groups().people.first { $0.name == "Alice" }?.faces == cast.keys(of: 0))
    }

    /// A named face does not attract the other faces of its own photo, however near: they are
    /// other people (a wedding photo's groom named, his guests stayed apart), while a near face of
    /// another photo joins.
    @Test func aNamedFaceDoesNotAttractTheFacesOfItsOwnPhoto() throws {
        var random = SeededRandom(seed: 23)
        let center = SyntheticFaces.center(using: &random)
        func face(_ photo: String, _ number: Int) -> DescribedFace {
            DescribedFace(key: FaceKey(contentHash: photo, faceNumber: number), descriptor: SyntheticFaces.face(near: center, using: &random))
        }
        let wedding = (0..<3).map { face("wedding", $0) }, portrait = face("portrait", 0)
        let facts = [PeopleCorrection(.name(wedding[0].key, "Groom"), source: .user, sequence: 1)]
        let groups = try PeopleGrouping.group(wedding + [portrait], corrections: facts)
        #expect(groups.people.map(\.faces) == [[portrait.key, wedding[0].key]])
        #expect(groups.unassigned == [wedding[1].key, wedding[2].key])
    }

    @Test func oneNamedFaceAttractsASingleNewFace() throws {
        var cast = SyntheticCast(seed: 22)
        let person = cast.addPerson(faces: 1)
        let first = cast.keys(of: person)[0]
        cast.addFaces(of: person, count: 1)
        let facts = [PeopleCorrection(.name(first, "Carol"), source: .user, sequence: 1)]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.map(\.faces) == [cast.keys(of: person)], "no three faces needed to join a named person")
        #expect(groups.unassigned.isEmpty)
    }

    @Test func facesNamedAlikeAreOnePerson() throws {
        let cast = Self.twoPeople()
        let facts = [
            PeopleCorrection(.name(cast.keys(of: 0)[0], "Dana"), source: .user, sequence: 1),
            PeopleCorrection(.name(cast.keys(of: 1)[0], "  Dana "), source: .user, sequence: 2),
        ]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.count == 1)
        #expect(groups.people[0].faces.count == 16 && groups.people[0].name == "Dana")
    }

    @Test func mergeMakesOnePersonOfTwo() throws {
        let cast = Self.twoPeople()
        let facts = [PeopleCorrection(.merge(cast.keys(of: 0)[4], cast.keys(of: 1)[6]), source: .user, sequence: 1)]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.map(\.faces) == [(cast.keys(of: 0) + cast.keys(of: 1)).sorted()])
        #expect(groups.people[0].confirmedFaces == [cast.keys(of: 0)[4], cast.keys(of: 1)[6]].sorted())
    }

    @Test func aMovedFaceMovesAloneAndStaysMoved() throws {
        var cast = Self.twoPeople()
        let a = cast.keys(of: 0), b = cast.keys(of: 1)
        var grouper = try PeopleGrouper()
        try grouper.add(cast.faces)
        grouper.corrections = [PeopleCorrection(.move(a[1], to: b[0]), source: .user, sequence: 1)]
        var groups = grouper.groups()
        #expect(groups.person(containing: b[0])?.faces == (b + [a[1]]).sorted())
        #expect(groups.person(containing: a[0])?.faces == a.filter { $0 != a[1] }, "its old companions stay")

        let later = cast.addFaces(of: 0, count: 4)
        try grouper.add(cast.faces.filter { later.contains($0.key) })
        groups = grouper.groups()
        #expect(groups.person(containing: a[1])?.faces.contains(b[3]) == true, "still moved after a regroup")
        #expect(groups.person(containing: a[0])?.faces.count == 7 + 4)
    }

    @Test func notThisPersonKeepsAFaceOutForGood() throws {
        var cast = Self.twoPeople()
        let a = cast.keys(of: 0)
        let facts = [PeopleCorrection(.notThisPerson(a[3], person: a[0]), source: .user, sequence: 1)]
        var grouper = try PeopleGrouper()
        grouper.corrections = facts
        try grouper.add(cast.faces)
        #expect(grouper.groups().person(containing: a[0])?.faces.contains(a[3]) == false)
        #expect(grouper.groups().unassigned == [a[3]])

        let later = cast.addFaces(of: 0, count: 5)
        try grouper.add(cast.faces.filter { later.contains($0.key) })
        #expect(grouper.groups().person(containing: a[0])?.faces.contains(a[3]) == false, "after a regroup too")
        #expect(try PeopleGrouping.group(cast.faces, corrections: facts) == grouper.groups())
    }

    @Test func notThisPersonBarsANamedPerson() throws {
        let cast = Self.twoPeople()
        let a = cast.keys(of: 0)
        let facts = [
            PeopleCorrection(.name(a[0], "Erin"), source: .user, sequence: 1),
            PeopleCorrection(.notThisPerson(a[5], person: a[0]), source: .user, sequence: 2),
        ]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.first { $0.name == "Erin" }?.faces == a.filter { $0 != a[5] })
        #expect(groups.unassigned == [a[5]])
    }

    @Test func notAFaceHidesItAndItFormsNoOne() throws {
        var cast = SyntheticCast(seed: 23)
        let statue = cast.addPerson(faces: 4)
        let keys = cast.keys(of: statue)
        let facts = [PeopleCorrection(.notAFace(keys[0]), source: .user, sequence: 1),
                     PeopleCorrection(.notAFace(keys[1]), source: .user, sequence: 2),
                     PeopleCorrection(.name(keys[1], "Statue"), source: .user, sequence: 3)]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.hidden == [keys[0], keys[1]])
        #expect(groups.people.isEmpty, "two faces left: too few for a person")
        #expect(groups.unassigned == [keys[2], keys[3]])
        #expect(groups.unappliedCorrections.map(\.sequence) == [3], "a hidden face takes no name")
    }

    @Test func aUserFactBeatsAnImportedOneAndTheLaterBeatsTheEarlier() throws {
        let cast = Self.twoPeople()
        let a = cast.keys(of: 0)
        let facts = [
            PeopleCorrection(.name(a[0], "Frank"), source: .user, sequence: 1),
            PeopleCorrection(.name(a[0], "Francis"), source: .imported("xmp"), sequence: 5),
        ]
        #expect(try PeopleGrouping.group(cast.faces, corrections: facts).person(containing: a[0])?.name == "Frank")
        let renamed = facts + [PeopleCorrection(.name(a[0], "Frankie"), source: .user, sequence: 9)]
        #expect(try PeopleGrouping.group(cast.faces, corrections: renamed).person(containing: a[0])?.name == "Frankie")
    }

    @Test func aHigherNotThisPersonBlocksALowerMerge() throws {
        let cast = Self.twoPeople()
        let a = cast.keys(of: 0), b = cast.keys(of: 1)
        let facts = [
            PeopleCorrection(.merge(a[0], b[0]), source: .imported("xmp"), sequence: 2),
            PeopleCorrection(.notThisPerson(b[1], person: a[1]), source: .user, sequence: 1),
            PeopleCorrection(.name(a[1], "Gil"), source: .user, sequence: 3),
            PeopleCorrection(.name(b[1], "Hana"), source: .user, sequence: 4),
        ]
        let groups = try PeopleGrouping.group(cast.faces, corrections: facts)
        #expect(groups.people.count == 2)
        #expect(groups.unappliedCorrections.map(\.sequence) == [2])
    }

    @Test func namedFacesNeverMoveWhenNewFacesBridgeTwoPeople() throws {
        var cast = Self.twoPeople(seed: 24)
        let a = cast.keys(of: 0), b = cast.keys(of: 1)
        let facts = a.enumerated().map { PeopleCorrection(.name($0.element, "Ines"), source: .user, sequence: Int64($0.offset)) }
            + b.enumerated().map { PeopleCorrection(.name($0.element, "Jo"), source: .user, sequence: Int64(100 + $0.offset)) }
        var grouper = try PeopleGrouper()
        grouper.corrections = facts
        try grouper.add(cast.faces)
        // Faces on the way from one to the other, which automatic grouping alone would chain.
        var bridge: [DescribedFace] = []
        for step in 1..<12 {
            let t = Float(step) / 12
            let point = zip(cast.centers[0], cast.centers[1]).map { (1 - t) * $0 + t * $1 }
            bridge.append(DescribedFace(key: FaceKey(contentHash: "bridge", faceNumber: step), descriptor: point))
        }
        try grouper.add(bridge)
        let groups = grouper.groups()
        #expect(groups.people.first { $0.name == "Ines" }.map { Set(a).isSubset(of: $0.faces) } == true)
        #expect(groups.people.first { $0.name == "Jo" }.map { Set(b).isSubset(of: $0.faces) } == true)
        #expect(groups.people.count == 2)
    }

    @Test func factsAboutFacesNotYetSeenWaitForThem() throws {
        var cast = Self.twoPeople()
        let late = cast.addFaces(of: 1, count: 1)[0]
        var grouper = try PeopleGrouper()
        grouper.corrections = [PeopleCorrection(.name(late, "Kim"), source: .user, sequence: 1)]
        try grouper.add(cast.faces.filter { $0.key != late })
        #expect(grouper.groups().unappliedCorrections.count == 1)
        #expect(grouper.groups().people.allSatisfy { $0.name == nil })
        try grouper.add(cast.faces.filter { $0.key == late })
        #expect(grouper.groups().unappliedCorrections.isEmpty)
        #expect(grouper.groups().person(containing: late)?.faces == cast.keys(of: 1))
        #expect(grouper.groups().person(containing: late)?.name == "Kim")
    }
}
