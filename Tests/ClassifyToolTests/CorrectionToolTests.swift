import ClassifyTestSupport
import Foundation
import Testing

/// `tag`, `show` and `export` on a real index: corrections survive `index` after a touch, a move
/// and a new model stamp, and search, show and export agree.
@Suite struct CorrectionToolTests {
    private func goodPhotos() throws -> Fixture { try Fixture.goodPhotos("tag") }

    /// The bundled model under another version: every file linked, model.json rewritten.
    private func modelWithNewStamp(in fixture: Fixture) throws -> URL {
        let source = Tool.packageRoot.appending(path: "Models/efficientnet-lite0")
        let copy = fixture.root.appending(path: "model-v2")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name != "model.json" {
            try FileManager.default.createSymbolicLink(at: copy.appending(path: name), withDestinationURL: source.appending(path: name))
        }
        let json = try String(contentsOf: source.appending(path: "model.json"), encoding: .utf8)
        let changed = json.replacingOccurrences(of: "\"modelVersion\": \"1\"", with: "\"modelVersion\": \"1-corrections-test\"")
        try #require(changed != json, "model.json names its version as expected")
        try Data(changed.utf8).write(to: copy.appending(path: "model.json"))
        return copy
    }

    private func jsonLines(_ result: Tool.Result) throws -> [[String: Any]] {
        try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func correctionsSurviveTouchMoveAndANewModel() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        #expect(try Tool.run(["search", "cat"] + db).lines == [fixture.cat])

        let added = try Tool.run(["tag", "add", fixture.cat, "grandma"] + db)
        #expect(added.status == 0)
        #expect(added.stderr.contains("added 'grandma' (your own label, outside the taxonomy) on 1 image"))
        let removed = try Tool.run(["tag", "remove", fixture.cat, "cat"] + db)
        #expect(removed.status == 0, "\(removed.stderr)")

        func check(_ path: String, _ moment: String) throws {
            #expect(try Tool.run(["search", "cat"] + db).lines.isEmpty, "\(moment): the removed label is not found")
            #expect(try Tool.run(["search", "grandma"] + db).lines == [path], "\(moment)")
            #expect(try Tool.run(["search", "grand*"] + db).lines == [path], "\(moment)")
            let show = try Tool.run(["show", path] + db)
            #expect(show.stdout.contains("grandma  (corrected: your label)"), "\(moment): \(show.stdout)")
            #expect(show.stdout.contains("removed   cat (corrected"), "\(moment)")
            let rows = try jsonLines(try Tool.run(["export", "--format", "jsonl", "--filter", "none"] + db))
            let row = try #require(rows.first { $0["path"] as? String == path }, "\(moment)")
            let labels = try #require(row["labels"] as? [[String: Any]])
            #expect(labels.first?["name"] as? String == "grandma", "\(moment)")
            let routes = labels.flatMap { $0["paths"] as? [String] ?? [] }
            #expect(!routes.contains { $0.split(separator: "|").contains("cat") }, "\(moment): nothing below cat is exported")
            #expect(row["removed"] as? [String] == ["cat"], "\(moment)")
        }
        try check(fixture.cat, "after tagging")

        // Touched: same content, new modification time.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: fixture.cat)
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        try check(fixture.cat, "after a touch")

        // Moved.
        let moved = fixture.photos.appending(path: "sub/chelsea moved.jpg").path
        try FileManager.default.moveItem(atPath: fixture.cat, toPath: moved)
        let afterMove = try Tool.run(["index", fixture.photos.path] + db)
        #expect(afterMove.stdout.contains("1 moved"), "\(afterMove.stdout)")
        try check(moved, "after a move")

        // A new model stamp classifies everything again.
        let model = try modelWithNewStamp(in: fixture)
        let again = try Tool.run(["index", fixture.photos.path, "--model", model.path] + db)
        #expect(again.stdout.contains("3 updated"), "\(again.stdout)")
        try check(moved, "after a new model stamp")

        let list = try Tool.run(["tag", "list"] + db)
        #expect(list.lines.count == 2)
        #expect(list.lines.allSatisfy { $0.hasSuffix("\t" + moved) })

        // Taking the correction back gives the model's labels again.
        #expect(try Tool.run(["tag", "clear", moved, "cat"] + db).status == 0)
        #expect(try Tool.run(["search", "cat"] + db).lines == [moved])
    }

    @Test func exportWritesSidecarsThatExiftoolReads() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        let rocket = fixture.photos.appending(path: "rocket.jpg").path
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        #expect(try Tool.run(["tag", "add", rocket, "holiday 2024"] + db).status == 0)

        let dry = try Tool.run(["export", "--xmp", "--dry-run"] + db)
        #expect(dry.status == 0)
        #expect(dry.lines.count == 3 && dry.lines.allSatisfy { $0.hasPrefix("created\t") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.photos.path).filter { $0.hasSuffix(".xmp") }.isEmpty)

        let export = try Tool.run(["export", "rocket", "--xmp", "--sidecar-name", "photo.jpg.xmp"] + db)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.lines.count == 1)
        let sidecar = rocket + ".xmp"
        #expect(export.lines.first?.hasPrefix("created\t\(sidecar)\t") == true)
        let csv = try Tool.run(["export", "--format", "csv"] + db)
        #expect(csv.status == 0)
        #expect(csv.lines.count == 4, "a header and one row per image")
        let rocketRow = try #require(csv.lines.first { $0.hasPrefix(rocket + ",") })
        #expect(rocketRow.contains("holiday 2024"))
        guard ExifTool.isInstalled else {
            print("skipping the exiftool read-back: exiftool is not installed (Debian: libimage-exiftool-perl)")
            return
        }
        let tags = try ExifTool.xmpTags(sidecar)
        let subjects = ExifTool.list(tags, "XMP-dc:Subject") ?? []
        #expect(subjects.contains("holiday 2024"))
        #expect(subjects.count >= 2, "the model's kept labels and the user label: \(subjects)")
        let paths = ExifTool.list(tags, "XMP-lr:HierarchicalSubject") ?? []
        #expect(paths.contains("holiday 2024"))
        #expect(paths.contains { $0.split(separator: "|").count >= 2 }, "taxonomy paths: \(paths)")
    }

    @Test func aKillDuringExportLeavesTheOldSidecarAndACorruptOneFailsAlone() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        #expect(try Tool.run(["export", "--xmp"] + db).status == 0)
        let rocket = fixture.photos.appending(path: "rocket.jpg").path
        let sidecar = fixture.photos.appending(path: "rocket.xmp").path
        let before = try Data(contentsOf: URL(fileURLWithPath: sidecar))

        #expect(try Tool.run(["tag", "add", rocket, "launch day"] + db).status == 0)
        var environment = Tool.environment(dataHome: fixture.dataHome)
        environment["CLASSIFY_CRASH_AT"] = "sidecar:1"
        let killed = try Tool.run(["export", "--xmp"] + db, environment: environment)
        #expect(killed.status != 0, "the export was killed before its rename")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sidecar)) == before, "the old sidecar is whole")
        let temporary = fixture.photos.appending(path: ".rocket.xmp.classify-tmp").path
        #expect(FileManager.default.fileExists(atPath: temporary))

        let corrupt = fixture.photos.appending(path: "coffee-cup.xmp").path
        let garbage = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF".utf8)
        try garbage.write(to: URL(fileURLWithPath: corrupt))
        let export = try Tool.run(["export", "--xmp"] + db)
        #expect(export.status == 2, "a failed sidecar makes the exit status 2")
        #expect(export.stderr.contains("failed\t\(corrupt): not a readable XMP sidecar"), "\(export.stderr)")
        #expect(export.lines.contains { $0.hasPrefix("updated\t\(sidecar)\t") && $0.contains("launch day") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: corrupt)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: temporary))
        let text = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(text.contains("launch day"))
    }
}
