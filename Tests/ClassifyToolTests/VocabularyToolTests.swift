import Foundation
import GRDB
import Testing

/// The three test photos (a cat, an espresso, a rocket), indexed once for the suite.
private let indexedPhotos = Task { () throws -> Fixture in
    let fixture = try Fixture.manyPhotos(3)
    let result = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
    guard result.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
    return fixture
}

/// Search words of the vocabulary on the command line: `search` and `labels WORD`.
@Suite struct VocabularyToolTests {
    private func run(_ arguments: [String]) async throws -> (Fixture, Tool.Result) {
        let fixture = try await indexedPhotos.value
        return (fixture, try Tool.run(arguments + ["--db", fixture.database.path]))
    }

    private func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    @Test func everydayWordsAndPluralsFindTheirPhotos() async throws {
        for word in ["pet", "pets", "kittens", "Cats"] {
            let (_, result) = try await run(["search", word])
            #expect(result.status == 0, "\(word): \(result.stderr)")
            #expect(result.lines.map(name) == ["photo-000.jpg"], "\(word)")
        }
        let (_, coffee) = try await run(["search", "coffee"])
        #expect(coffee.lines.map(name) == ["photo-001.jpg"])
    }

    @Test func searchJSONIsTheSameShapeForWords() async throws {
        let (_, word) = try await run(["search", "pets", "--format", "json"])
        let (_, label) = try await run(["search", "domestic_cat", "--format", "json"])
        let wordObject = try #require(try JSONSerialization.jsonObject(with: Data(word.stdout.utf8)) as? [String: Any])
        let labelObject = try #require(try JSONSerialization.jsonObject(with: Data(label.stdout.utf8)) as? [String: Any])
        #expect(Set(wordObject.keys) == Set(labelObject.keys))
        let hits = try #require(wordObject["results"] as? [[String: Any]])
        #expect(hits.count == 1)
        // The photo states no date: its file time stands in (takenFrom "file"); no position or camera.
        #expect(Set(hits[0].keys) == ["path", "score", "size", "modified", "width", "height", "labels", "taken", "takenFrom"])
        // Labels in results are the taxonomy's, never vocabulary words.
        let labels = (hits[0]["labels"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
        #expect(labels.contains("domestic_cat") && !labels.contains("pet"))
    }

    @Test func unsupportedWordsExitOneWithTheSentence() async throws {
        let (_, result) = try await run(["search", "sunsets"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: cannot search for 'sunsets' (at offset 0): The classifier cannot see sunsets: it "
            + "recognizes objects and scenes, not light or time of day. Search by color instead: --color FF8C00 (orange), "
            + "alone or with a query.\n")
    }

    @Test func misspeltWordsGetSwapsAsOneEdit() async throws {
        let (_, result) = try await run(["search", "cta"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: unknown label 'cta' at offset 0; did you mean 'cat'"))
    }

    @Test func labelsExplainsAWord() async throws {
        let (_, beach) = try await run(["labels", "beaches"])
        #expect(beach.status == 0)
        // The image count is that of `search beach --filter none`: every image with one of its labels
        // at any stored confidence, so it depends on confidences near the 0.01 floor; not pinned here.
        #expect(beach.lines.first.map(Self.withoutCount) == "beach  (search word, from 'beaches'; N images)")
        #expect(Array(beach.lines.dropFirst().prefix(2)) == [
            "    means: seashore OR sandbar OR breakwater",
            "    why: the shore scenes: seashore and sandbar; a breakwater (jetty, groyne) stands on a beach",
        ])
        // Then the labels whose name has a word starting with it, as before.
        #expect(beach.lines.dropFirst(3).first.map(Self.withoutCount) == "beach_wagon  (beach wagon; class; N images)")

        let (_, people) = try await run(["labels", "people"])
        #expect(people.lines.first.map(Self.withoutCount) == "people  (search word; N images)")
        #expect(Array(people.lines.dropFirst()) == [
            "    means: person",
            "    why: ImageNet-1k's WordNet person classes (ballplayer, groom, scuba diver; the label person covers them); "
                + "ImageNet-1k has no general person class",
            // The fixture's index was built with faces (the default), so the word says it takes them.
            "    with faces: also images with 1 or more faces (faces:1+)",
        ])

        let (_, sky) = try await run(["labels", "sky"])
        #expect(sky.status == 0)
        #expect(sky.lines == [
            "sky  (search word the classifier cannot see)",
            "    The classifier cannot see the sky: it recognizes objects and scenes, not light or time of day. "
                + "Search by color instead: --color 87CEEB (sky blue), alone or with a query.",
            "    why: no ImageNet-1k class is the sky",
        ])
    }

    @Test func aSecondIndexRunDoesNotRewriteTheTaxonomyAndVocabulary() throws {
        // Each process hashes with its own seed: the stored vocabulary must not depend on it, or
        // every run would rewrite the taxonomy (and hold the write lock for it).
        let fixture = try Fixture.empty("vocabulary-rerun")
        defer { fixture.remove() }
        for _ in 0..<3 {
            let result = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let queue = try DatabaseQueue(path: fixture.database.path)
        defer { try? queue.close() }
        let generation = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'taxonomy_generation'")
        }
        #expect(generation == 1)
    }

    /// A line with its image count replaced by N (`3 images`, `1 image` -> `N images`).
    static func withoutCount(_ line: String) -> String {
        line.replacing(/\d+ images?\)/, with: "N images)")
    }

    @Test func labelsJSONIsUnchangedByWords() async throws {
        let (_, result) = try await run(["labels", "beach", "--format", "json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(objects.compactMap { $0["identifier"] as? String } == ["beach_wagon"])
    }
}
