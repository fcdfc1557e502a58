import Foundation
import Testing
@testable import TagIndex

extension IndexRunTests {
    /// A copy found by content during an index run carries the corrections and what the model
    /// gave the content, so later corrections on either file start from the model.
    @Test func correctionsFollowCopiesFoundByAnIndexRun() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path("a.jpg"), contents: Data("a".utf8)))
        _ = try run([facts("a.jpg")], hashes: ["a.jpg": "aaaa"], labels: [:])  // dog 0.9, animal 0.95
        _ = try index.removeLabel("dog", from: [path("a.jpg")])
        _ = try index.addLabel("cat", to: [path("a.jpg")])

        // The original still exists: the new file is a copy, labelled without being classified.
        #expect(FileManager.default.createFile(atPath: path("copy.jpg"), contents: Data("a".utf8)))
        let (_, resolutions) = try run(
            [facts("a.jpg"), facts("copy.jpg")], hashes: ["a.jpg": "aaaa", "copy.jpg": "aaaa"], labels: [:])
        #expect(resolutions["copy.jpg"] == .copied(from: path("a.jpg")))
        #expect(try index.search("cat").hits.map(\.path).sorted() == [path("a.jpg"), path("copy.jpg")])
        #expect(try index.search("dog").hits.isEmpty)

        // Taking the removal back, on the copy, takes it back for the content: both see the model's dog.
        _ = try index.clearCorrection(of: "dog", on: [path("copy.jpg")])
        #expect(try index.search("dog").hits.map(\.path).sorted() == [path("a.jpg"), path("copy.jpg")])
        #expect(try index.search("cat").hits.count == 2)
        #expect(try index.database.read(Postings.matchObservations))
    }
}
