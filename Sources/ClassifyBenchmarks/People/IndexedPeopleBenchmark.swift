import ClassifyPeople
import Foundation
import TagIndex

/// People through a SQLite index, as `index` and `people` run them: `faces` synthetic faces (the
/// library of ``PeopleBenchmark``, three faces a photo) written with descriptors, grouped by
/// `refreshPeople()` (read every descriptor, group, store `people` and `face_people`), then `added`
/// more faces in new photos and the refresh again, then one correction (a name) with its regroup;
/// wall and CPU time of each, and the process's peak memory.
///
/// ```swift
/// for line in try await IndexedPeopleBenchmark.run(faces: 100_000, added: 1_000, in: folder) { print(line) }
/// ```
package enum IndexedPeopleBenchmark {
    static let model = ModelStamp(name: "bench", version: "1")
    static let labels = [LabelDefinition(identifier: "face", displayName: "Face")]

    package static func run(faces faceCount: Int, added addedCount: Int, in folder: URL) async throws -> [String] {
        let database = folder.appending(path: "people-bench.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        let index = try SQLiteIndex(url: database)
        try index.replaceTaxonomy(labels, model: model)
        var lines = ["faces \(faceCount), then \(addedCount) more, in a SQLite index at \(database.path)"]
        let added: [DescribedFace]
        do {
            let all = PeopleBenchmark.library(faceCount + addedCount, seed: 42, prefix: "photo")
            added = Array(all.suffix(addedCount))
            let written = try await PeopleBenchmark.seconds { try await write(Array(all.prefix(faceCount)), to: index, root: "/bench") }
            lines.append(String(format: "written: %.2f s (%d faces read back)", written.wall, try index.peopleGroupingInputs().faces.count))
        }
        // The peak memory from here on is the grouping's, not the generated library's.
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        lines.append(String(format: "memory before grouping: %.0f MB (peak %@)", PeopleBenchmark.residentMegabytes(), reset ? "reset" : "not reset: /proc/self/clear_refs"))
        var refresh = PeopleRefresh(regrouped: false, people: 0, named: 0, unassigned: 0, faces: 0)
        let first = try await PeopleBenchmark.seconds { refresh = try await index.refreshPeople() }
        lines.append(String(
            format: "first grouping: %.2f s wall, %.2f s CPU; %d people, %d faces waiting", first.wall, first.cpu, refresh.people, refresh.unassigned))
        let unchanged = try await PeopleBenchmark.seconds { refresh = try await index.refreshPeople() }
        lines.append(String(format: "nothing changed: %.3f s (regrouped: %@)", unchanged.wall, refresh.regrouped ? "yes" : "no"))
        // Another folder: a run over the first one would remove the photos it does not see.
        _ = try await write(added, to: index, root: "/added")
        let more = try await PeopleBenchmark.seconds { refresh = try await index.refreshPeople() }
        lines.append(String(
            format: "after adding %d faces: %.2f s wall, %.2f s CPU; %d faces, %d people, %d faces waiting", addedCount, more.wall, more.cpu,
            refresh.faces, refresh.people, refresh.unassigned))
        let person = try index.people().first!.id
        let named = try await PeopleBenchmark.seconds { try await index.correctPeople(.name(person: person, "Anna")) }
        lines.append(String(format: "a name and its regrouping: %.2f s wall, %.2f s CPU", named.wall, named.cpu))
        lines.append(String(format: "peak memory while grouping: %.0f MB", PeopleBenchmark.peakMemoryMegabytes()))
        return lines
    }

    /// On the index an earlier ``run(faces:added:in:)`` left in `folder`, in this fresh process (so
    /// the peak memory is the grouping's alone): adds `added` new faces (of new people and
    /// strangers) and refreshes as `index` does, then groups every face from scratch.
    package static func existing(added addedCount: Int, in folder: URL) async throws -> [String] {
        let index = try SQLiteIndex(url: folder.appending(path: "people-bench.sqlite"))
        var refresh = PeopleRefresh(regrouped: false, people: 0, named: 0, unassigned: 0, faces: 0)
        // First as `index` does after a run that found new faces: continued from the stored state.
        let root = "/more-\(Int(Date().timeIntervalSince1970))"
        try await write(PeopleBenchmark.library(addedCount, seed: UInt64(Date().timeIntervalSince1970), prefix: "new"), to: index, root: root)
        let more = try await PeopleBenchmark.seconds { refresh = try await index.refreshPeople() }
        var lines = [String(
            format: "adding %d: %.2f s wall, %.2f s CPU; %d faces, %d people; peak memory %.0f MB", addedCount, more.wall, more.cpu, refresh.faces,
            refresh.people, PeopleBenchmark.peakMemoryMegabytes())]
        let scratch = try await PeopleBenchmark.seconds { refresh = try await index.refreshPeople(force: true) }
        lines.append(String(
            format: "then from scratch: %.2f s wall, %.2f s CPU; %d faces, %d people; peak memory %.0f MB", scratch.wall, scratch.cpu, refresh.faces,
            refresh.people, PeopleBenchmark.peakMemoryMegabytes()))
        return lines
    }

    /// Writes `faces` as photos of three faces each (by their keys' photo), as an index run does.
    private static func write(_ faces: [DescribedFace], to index: SQLiteIndex, root: String) async throws {
        var byPhoto: [String: [DescribedFace]] = [:]
        for face in faces { byPhoto[face.key.contentHash, default: []].append(face) }
        let run = try await index.beginRun(
            roots: [try LibraryRoot(parsing: root)], labels: labels, model: model, vocabulary: [], settings: RunSettings())
        let worker = run.makeWorker()
        var batch: [IndexEntry] = []
        for (photo, faces) in byPhoto.sorted(by: { $0.key < $1.key }) {
            // Stored highest confidence first: the face numbers are the keys' own.
            let stored = faces.sorted { $0.key.faceNumber < $1.key.faceNumber }.enumerated().map { order, face in
                IndexedFace(x: Double(10 + 60 * order), y: 10, width: 50, height: 60, confidence: 0.99 - Double(order) * 0.01, descriptor: face.descriptor)
            }
            // A photo's faces may fall on both sides of the cut: each side its own content.
            batch.append(.classified(ImageClassification(
                path: "\(root)/\(photo).jpg", size: 1, modificationTime: Date(timeIntervalSince1970: 1_700_000_000), contentHash: root + photo,
                width: 640, height: 480, model: model, observations: [LabelConfidence(identifier: "face", confidence: 0.99)], faces: stored)))
            if batch.count == 500 {
                _ = try await worker.write(batch, completing: [])
                batch = []
            }
        }
        _ = try await worker.write(batch, completing: [])
        await worker.close()
        _ = try await run.finish()
    }
}
