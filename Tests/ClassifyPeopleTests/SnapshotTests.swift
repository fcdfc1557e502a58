import ClassifyPeople
import ClassifyTestSupport
import Foundation
import Testing

/// A grouper continued from a snapshot in another process gives the people of one that never
/// stopped (with the facts, whichever faces came before and after); a snapshot of other faces,
/// other descriptors or other parameters restores nothing, and damaged bytes are an error.
@Suite struct SnapshotTests {
    @Test func continuingFromASnapshotEqualsGroupingFromScratch() throws {
        let cast = DeterminismTests.crowd()
        let facts = DeterminismTests.facts(cast)
        let reference = try PeopleGrouping.group(cast.faces, corrections: facts)
        for seed in 1...4 as ClosedRange<UInt64> {
            let faces = cast.shuffled(seed: seed)
            let cut = faces.count * Int(seed) / 5
            var first = try PeopleGrouper()
            first.corrections = seed.isMultiple(of: 2) ? facts : []
            try first.add(Array(faces.prefix(cut)))
            let bytes = first.snapshot().encoded()
            let snapshot = try GroupingSnapshot(decoding: bytes)
            #expect(snapshot == first.snapshot() && snapshot.keys.count == cut)
            // Another process: every face read again, the snapshot's and the new ones.
            var next = try #require(try PeopleGrouper(restoring: snapshot, faces: faces))
            next.corrections = facts
            let known = Set(snapshot.keys)
            try next.add(faces.filter { !known.contains($0.key) })
            #expect(next.groups() == reference, "cut at \(cut) of \(faces.count)")
        }
    }

    @Test func aSnapshotOfOtherFacesOrParametersRestoresNothing() throws {
        let cast = DeterminismTests.crowd()
        var grouper = try PeopleGrouper()
        try grouper.add(cast.faces)
        let snapshot = grouper.snapshot()
        // A face gone, a descriptor changed, a stricter distance.
        #expect(try PeopleGrouper(restoring: snapshot, faces: Array(cast.faces.dropFirst())) == nil)
        var changed = cast.faces
        changed[3].descriptor[0] += 0.01
        #expect(try PeopleGrouper(restoring: snapshot, faces: changed) == nil)
        #expect(try PeopleGrouper(restoring: snapshot, faces: cast.faces, parameters: GroupingParameters(matchDistance: 0.5)) == nil)
        #expect(try PeopleGrouper(restoring: snapshot, faces: cast.faces, parameters: GroupingParameters(matchDistance: 0.6, minimumFaceSide: 20)) == nil)
        #expect(try PeopleGrouper(restoring: snapshot, faces: cast.faces) != nil)
        // Damaged bytes: a sentence, never a crash.
        let bytes = snapshot.encoded()
        for damaged in [Data(), Data("CPGS".utf8), bytes.prefix(bytes.count / 2), bytes + Data([0])] {
            #expect(throws: GroupingError.self) { try GroupingSnapshot(decoding: Data(damaged)) }
        }
        var scrambled = bytes
        scrambled[scrambled.count - 5] ^= 0x7F
        _ = try? GroupingSnapshot(decoding: scrambled)
    }

    /// Snapshot checksums and people fingerprints are stored, so the hash under them must give the
    /// published FNV-1a 64-bit values (test vectors of the FNV reference).
    @Test func theStoredHashIsFNV1a() {
        func hash(_ text: String) -> UInt64 {
            var hash = FNV1a()
            hash.mix(text.utf8)
            return hash.value
        }
        #expect(hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(hash("foobar") == 0x8594_4171_f739_67e8)
    }
}
