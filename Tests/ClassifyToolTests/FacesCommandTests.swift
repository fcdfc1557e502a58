import Foundation
import Testing

/// `classify-tool faces` end to end: JSON shape, failed rows, exit statuses, the confidence filter.
@Suite struct FacesCommandTests {
    static let astronaut = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png").path

    @Test func jsonListsFacesAndFailedFilesWithExitStatusTwo() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let result = try Tool.run(["faces", Self.astronaut, fixture.photos.path, "--format", "json"])
        #expect(result.status == 2, "some files fail, so the exit status is 2")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0["path"] as? String ?? "", $0) })
        #expect(Set(byPath.keys) == Set([Self.astronaut] + fixture.good + fixture.bad.keys))

        let astronaut = try #require(byPath[Self.astronaut])
        #expect(astronaut["width"] as? Int == 168 && astronaut["height"] as? Int == 160)
        let faces = try #require(astronaut["faces"] as? [[String: Any]])
        let face = try #require(faces.first)
        #expect(faces.count == 1)
        let x = try #require(face["x"] as? Double), width = try #require(face["width"] as? Double)
        #expect(x > 30 && x < 70 && width > 30 && width < 60)
        #expect((face["confidence"] as? Double ?? 0) > 0.99)
        let landmarks = try #require(face["landmarks"] as? [String: [String: Double]])
        #expect(Set(landmarks.keys) == ["leftEye", "rightEye", "nose", "mouthLeft", "mouthRight"])

        let cat = try #require(byPath[fixture.cat])
        #expect((cat["faces"] as? [Any])?.isEmpty == true)
        for (path, stage) in fixture.bad {
            let error = try #require(byPath[path]?["error"] as? [String: String], "\(path) has an error object")
            #expect(error["stage"] == stage, "\(path)")
        }
    }

    @Test func tableAndMinimumConfidence() throws {
        let table = try Tool.run(["faces", Self.astronaut])
        #expect(table.status == 0)
        #expect(table.stdout.contains("168x160  1 face"))
        let none = try Tool.run(["faces", Self.astronaut, "--format", "jsonl", "--min-confidence", "1"])
        #expect(none.status == 0)
        #expect(none.stdout.contains("\"faces\":[]"))
        let bad = try Tool.run(["faces", Self.astronaut, "--min-confidence", "2"])
        #expect(bad.status == 1)
    }

    /// `index` stores faces by default; `faces:N`, `face`, `person` and `show` read them; an index
    /// built with `--no-faces` gets its faces on the next run without classifying again, and says
    /// so; `--no-faces` later leaves the stored faces alone.
    @Test func indexStoresFacesForSearchAndShow() throws {
        let fixture = try Fixture.empty("faces")
        defer { fixture.remove() }
        let astronaut = fixture.photos.appending(path: "astronaut.png").path
        try FileManager.default.copyItem(atPath: Self.astronaut, toPath: astronaut)
        try FileManager.default.copyItem(at: Fixture.sourcePhotos.appending(path: "cat-chelsea.jpg"), to: fixture.photos.appending(path: "cat.jpg"))
        let db = fixture.database.path
        #expect(try Tool.run(["index", fixture.photos.path, "--db", db, "--quiet"]).status == 0)
        #expect(try Tool.run(["search", "faces:1", "--db", db]).lines == [astronaut])
        let again = try Tool.run(["index", fixture.photos.path, "--db", db])
        #expect(again.lines.first?.contains("0 new, 0 updated") == true && again.lines.first?.contains("2 unchanged") == true, "\(again.lines)")
        #expect(!again.stdout.contains("faces added"))
        #expect(try Tool.run(["search", "faces:1", "--db", db]).lines == [astronaut])
        #expect(try Tool.run(["search", "faces:0", "--db", db]).lines == [fixture.photos.appending(path: "cat.jpg").path])
        // The word finds the faces under the default calibrated filter and without one.
        #expect(try Tool.run(["search", "face", "--db", db]).lines == [astronaut])
        #expect(try Tool.run(["search", "face", "--filter", "none", "--db", db]).lines == [astronaut])
        #expect(try Tool.run(["search", "people", "--db", db]).lines.contains(astronaut))
        let show = try Tool.run(["show", astronaut, "--db", db])
        #expect(show.stdout.contains("faces     1"))
        // --no-faces looks for no faces but keeps those stored; nothing is classified again.
        let off = try Tool.run(["index", fixture.photos.path, "--db", db, "--no-faces"])
        #expect(off.lines.first?.contains("0 new, 0 updated") == true, "\(off.lines)")
        #expect(try Tool.run(["search", "faces:1", "--db", db]).lines == [astronaut])

        // An index built without faces gets them on the next run, without classifying again.
        let plain = fixture.root.appending(path: "plain.sqlite").path
        #expect(try Tool.run(["index", fixture.photos.path, "--db", plain, "--quiet", "--no-faces"]).status == 0)
        #expect(try Tool.run(["search", "faces:0+", "--db", plain]).lines.isEmpty)
        #expect(try Tool.run(["search", "face", "--db", plain]).lines.isEmpty)
        let added = try Tool.run(["index", fixture.photos.path, "--db", plain])
        #expect(added.status == 0)
        #expect(added.lines.first?.contains("0 new, 0 updated") == true && added.lines.first?.contains("2 unchanged") == true, "\(added.lines)")
        #expect(added.lines.contains("faces added to 2 photos indexed without them"), "\(added.lines)")
        #expect(try Tool.run(["search", "faces:1", "--db", plain]).lines == [astronaut])
        #expect(try Tool.run(["search", "face", "--db", plain]).lines == [astronaut])
        #expect(try Tool.run(["show", astronaut, "--db", plain]).stdout.contains("faces     1"))
        #expect(!(try Tool.run(["index", fixture.photos.path, "--db", plain]).stdout.contains("faces added")))
    }

    /// `index --faces thorough` looks at the photos indexed with the fast look once and says so;
    /// `--no-faces` with it is refused, as is a look that does not exist.
    @Test func indexLooksThoroughlyOnceWhenAsked() throws {
        let fixture = try Fixture.empty("thorough-faces")
        defer { fixture.remove() }
        let astronaut = fixture.photos.appending(path: "astronaut.png").path
        try FileManager.default.copyItem(atPath: Self.astronaut, toPath: astronaut)
        let db = fixture.database.path
        #expect(try Tool.run(["index", fixture.photos.path, "--db", db, "--quiet", "--faces", "fast"]).status == 0)
        let thorough = try Tool.run(["index", fixture.photos.path, "--db", db, "--faces", "thorough"])
        #expect(thorough.status == 0)
        #expect(thorough.lines.contains("looked at 1 photo thoroughly for faces (indexed before with --faces fast)"), "\(thorough.lines)")
        #expect(try Tool.run(["search", "faces:1", "--db", db]).lines == [astronaut])
        #expect(!(try Tool.run(["index", fixture.photos.path, "--db", db, "--faces", "thorough"]).stdout.contains("thoroughly")))
        #expect(try Tool.run(["index", fixture.photos.path, "--db", db, "--faces", "thorough", "--no-faces"]).status != 0)
        #expect(try Tool.run(["index", fixture.photos.path, "--db", db, "--faces", "slow"]).status != 0)
    }
}

