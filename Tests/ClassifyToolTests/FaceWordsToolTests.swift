import Foundation
import Testing

/// The faces of an index built with faces, through the commands that read them: `search` (the word
/// `face` and words with `facesAtLeast` under the default calibrated filter), `export` (CSV and JSON
/// Lines), `stats` and `show`; and the same search and stats answers from a PostgreSQL copy.
@Suite struct FaceWordsToolTests {
    /// The astronaut portrait (one face) and a cat photo, indexed with faces.
    static func indexedWithFaces() throws -> (fixture: Fixture, astronaut: String, cat: String) {
        let fixture = try Fixture.empty("face-words")
        let astronaut = fixture.photos.appending(path: "astronaut.png").path
        let cat = fixture.photos.appending(path: "cat.jpg").path
        try FileManager.default.copyItem(atPath: FacesCommandTests.astronaut, toPath: astronaut)
        try FileManager.default.copyItem(at: Fixture.sourcePhotos.appending(path: "cat-chelsea.jpg"), to: URL(fileURLWithPath: cat))
        let indexed = try Tool.run(["index", fixture.photos.path, "--quiet", "--db", fixture.database.path])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        return (fixture, astronaut, cat)
    }

    @Test func searchExportStatsAndShowReadTheFaces() throws {
        let (fixture, astronaut, cat) = try Self.indexedWithFaces()
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]

        // The default filter (high recall) and high precision keep the stored face.
        #expect(try Tool.run(["search", "face"] + db).lines == [astronaut])
        #expect(try Tool.run(["search", "face", "--filter", "high-precision"] + db).lines == [astronaut])
        #expect(try Tool.run(["search", "faces", "--filter", "high-precision"] + db).lines == [astronaut])
        #expect(try Tool.run(["search", "people", "--filter", "high-precision"] + db).lines.contains(astronaut))
        // `woman` cannot be told apart, but searches the faces once they are indexed; `group` needs 3.
        #expect(try Tool.run(["search", "woman"] + db).lines == [astronaut])
        #expect(!(try Tool.run(["search", "group"] + db).lines.contains(astronaut)))
        let labels = try Tool.run(["labels", "woman"] + db)
        #expect(labels.stdout.contains("means: images with 1 or more faces (faces:1+)"), "\(labels.stdout)")

        let csv = try Tool.run(["export", "--format", "csv"] + db)
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.lines.first?.hasSuffix(",error_stage,error_reason,faces") == true)
        #expect(csv.lines.first { $0.hasPrefix(astronaut + ",") }?.hasSuffix(",1") == true, "\(csv.stdout)")
        #expect(csv.lines.first { $0.hasPrefix(cat + ",") }?.hasSuffix(",0") == true, "\(csv.stdout)")
        let rows = try jsonLines(try Tool.run(["export", "--format", "jsonl"] + db))
        let portrait = try #require(rows.first { $0["path"] as? String == astronaut })
        #expect(portrait["faceCount"] as? Int == 1)
        let face = try #require((portrait["faces"] as? [[String: Any]])?.first)
        // index finds faces with BlazeFace: a stored face is at or above its minimum confidence, 0.6 (the astronaut scores 0.83).
        #expect(((face["confidence"] as? NSNumber)?.doubleValue ?? 0) >= 0.6)
        #expect(((face["width"] as? NSNumber)?.doubleValue ?? 0) > 20)
        // The face label is exported under the default high-precision filter.
        #expect((portrait["labels"] as? [[String: Any]])?.contains { $0["identifier"] as? String == "face" } == true)

        let stats = try JSONSerialization.jsonObject(with: Data(try Tool.run(["stats", "--json"] + db).stdout.utf8)) as? [String: Any]
        let faces = try #require(stats?["faces"] as? [String: Int])
        #expect(faces == ["imagesScanned": 2, "imagesWithFaces": 1, "faces": 1, "described": 1])
        #expect(try Tool.run(["stats"] + db).stdout.contains("faces         1 in 1 images (2 looked at, 1 described for recognition)"))

        let show = try JSONSerialization.jsonObject(with: Data(try Tool.run(["show", astronaut, "--format", "json"] + db).stdout.utf8)) as? [String: Any]
        #expect((show?["faces"] as? [[String: Any]])?.count == 1)
    }

    @Test(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
    func aPostgreSQLCopyAnswersTheSameFaceSearches() throws {
        let (fixture, astronaut, _) = try Self.indexedWithFaces()
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        let database = try DevPostgres.freshDatabase()
        let copied = try Tool.run(["copy", "--from", fixture.database.path, "--to", database])
        #expect(copied.status == 0, "\(copied.stderr)")
        for query in ["face", "woman", "people", "group", "face -cat"] {
            #expect(try Tool.run(["search", query, "--db", database]).lines == (try Tool.run(["search", query] + db).lines), "\(query)")
        }
        let stats = { (location: [String]) throws -> [String: Int]? in
            let object = try JSONSerialization.jsonObject(with: Data(try Tool.run(["stats", "--json"] + location).stdout.utf8)) as? [String: Any]
            return object?["faces"] as? [String: Int]
        }
        #expect(try stats(["--db", database]) == ["imagesScanned": 2, "imagesWithFaces": 1, "faces": 1, "described": 1])
        #expect(try stats(["--db", database]) == (try stats(db)))
        // The faces come back with a copy to SQLite and show there.
        let back = fixture.root.appending(path: "back.sqlite").path
        #expect(try Tool.run(["copy", "--from", database, "--to", back]).status == 0)
        let show = try JSONSerialization.jsonObject(with: Data(try Tool.run(["show", astronaut, "--format", "json", "--db", back]).stdout.utf8)) as? [String: Any]
        let original = try JSONSerialization.jsonObject(with: Data(try Tool.run(["show", astronaut, "--format", "json"] + db).stdout.utf8)) as? [String: Any]
        let faces = try #require(show?["faces"] as? [[String: Any]])
        #expect(faces.count == 1)
        #expect(NSArray(array: faces) == NSArray(array: try #require(original?["faces"] as? [[String: Any]])))
        // And `show` on PostgreSQL itself lists them the same.
        let direct = try JSONSerialization.jsonObject(with: Data(try Tool.run(["show", astronaut, "--format", "json", "--db", database]).stdout.utf8)) as? [String: Any]
        #expect(NSArray(array: try #require(direct?["faces"] as? [[String: Any]])) == NSArray(array: faces))
    }

    private func jsonLines(_ result: Tool.Result) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }
}
