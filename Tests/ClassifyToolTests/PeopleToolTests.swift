import Classify
import ClassifyTestSupport
import Foundation
import Testing

/// People through the commands, on photos of two real people (the astronaut and the cameraman
/// fixtures, each at three scales, crops and JPEG qualities): `index` groups them, `people`
/// lists, names, hides; `search person:` and a name typed alone find them; `show` names each
/// face; a run killed inside the grouping's transaction loses nothing; a PostgreSQL copy answers
/// the same.
@Suite struct PeopleToolTests {
    static let faces = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/faces")

    /// Three variants of a fixture portrait, first made `scale` times larger (nearest): JPEG
    /// quality 40, 1.5x larger again, cropped.
    static func variants(of file: String, scale: Int = 1) throws -> [[UInt8]] {
        let decoded = try ImageDecoder().decode(contentsOf: faces.appending(path: file))
        let (width, height) = (decoded.width * scale, decoded.height * scale)
        let pixels = nearest(decoded.pixels, decoded.width, decoded.height, to: width, height)
        let larger = nearest(pixels, width, height, to: width * 3 / 2, height * 3 / 2)
        let cropWidth = width * 8 / 10, cropHeight = height * 9 / 10
        var cropped: [UInt8] = []
        for y in 0..<cropHeight { cropped += pixels[(y * width * 3)..<(y * width * 3 + cropWidth * 3)] }
        return [
            try TestJPEG.encode(pixels, width: width, height: height, quality: 40),
            try TestJPEG.encode(larger, width: width * 3 / 2, height: height * 3 / 2, quality: 90),
            try TestJPEG.encode(cropped, width: cropWidth, height: cropHeight, quality: 95),
        ]
    }

    /// RGB pixels resized to `newWidth` x `newHeight` by taking the nearest pixel.
    static func nearest(_ pixels: [UInt8], _ width: Int, _ height: Int, to newWidth: Int, _ newHeight: Int) -> [UInt8] {
        var resized = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                let source = ((y * height / newHeight) * width + x * width / newWidth) * 3
                for channel in 0..<3 { resized[(y * newWidth + x) * 3 + channel] = pixels[source + channel] }
            }
        }
        return resized
    }

    /// The two people's photos in a fresh fixture: astronaut-1...3.jpg, camera-1...3.jpg.
    static func twoPeople(_ name: String) throws -> Fixture {
        let fixture = try Fixture.empty(name)
        // The cameraman's face is 28 px in his 256-px fixture: twice that, so that every variant's
        // face is large enough to group (40 px, GroupingParameters.minimumFaceSide).
        for (person, file, scale) in [("astronaut", "astronaut.png", 1), ("camera", "camera.png", 2)] {
            for (number, bytes) in try variants(of: file, scale: scale).enumerated() {
                try Data(bytes).write(to: fixture.photos.appending(path: "\(person)-\(number + 1).jpg"))
            }
        }
        return fixture
    }

    static func json(_ result: Tool.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    static func people(_ db: [String]) throws -> [[String: Any]] {
        try #require(try json(try Tool.run(["people", "--format", "json"] + db))["people"] as? [[String: Any]])
    }

    @Test func indexGroupsNameAndSearch() throws {
        let fixture = try Self.twoPeople("people-tool")
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        let path = { (name: String) in fixture.photos.appending(path: name).path }
        let indexed = try Tool.run(["index", fixture.photos.path] + db)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        #expect(indexed.stdout.contains("people: 6 faces grouped into 2 people (0 named), 0 waiting for a person"), "\(indexed.stdout)")

        var people = try Self.people(db)
        #expect(people.map { $0["faces"] as? Int } == [3, 3] && people.map { $0["photos"] as? Int } == [3, 3])
        #expect(people.allSatisfy { $0["name"] as? String == "" })
        let astronaut = try #require(people.first { ($0["sample"] as? String)?.contains("/astronaut-") == true }?["id"] as? Int)
        let camera = try #require(people.first { ($0["sample"] as? String)?.contains("/camera-") == true }?["id"] as? Int)

        // Unnamed people are found by id; then named, by name, prefix and name typed alone.
        let astronauts = (1...3).map { path("astronaut-\($0).jpg") }
        #expect(try Tool.run(["search", "person:\(astronaut)"] + db).lines.sorted() == astronauts)
        let named = try Tool.run(["people", "name", String(astronaut), "Eileen Collins"] + db)
        #expect(named.status == 0 && named.stderr.contains("named person \(astronaut) Eileen Collins"), "\(named.stderr)")
        #expect(try Tool.run(["people", "name", String(camera), "Cam"] + db).status == 0)
        #expect(try Tool.run(["search", "person:eileen"] + db).lines.sorted() == astronauts)
        #expect(try Tool.run(["search", "person:collins"] + db).lines.sorted() == astronauts)
        #expect(try Tool.run(["search", "cam"] + db).lines.sorted() == (1...3).map { path("camera-\($0).jpg") })
        #expect(try Tool.run(["search", "person:eileen AND person:cam"] + db).lines.isEmpty)
        #expect(try Tool.run(["search", "person:eileen OR person:cam"] + db).lines.count == 6)
        let show = try Self.json(try Tool.run(["show", path("astronaut-2.jpg"), "--format", "json"] + db))
        let face = try #require((show["faces"] as? [[String: Any]])?.first)
        #expect((face["person"] as? [String: Any])?["name"] as? String == "Eileen Collins" && face["face"] as? Int == 1)
        #expect(try Tool.run(["show", path("astronaut-2.jpg")] + db).stdout.contains("person \(astronaut) Eileen Collins"))

        // Indexing again keeps the people and their names; a face hidden leaves its person.
        let again = try Tool.run(["index", fixture.photos.path] + db)
        #expect(again.status == 0 && !again.stdout.contains("people:"), "\(again.stdout)")
        #expect(try Tool.run(["people", "hide", path("astronaut-3.jpg"), "1"] + db).status == 0)
        people = try Self.people(db)
        #expect(people.map { $0["name"] as? String } == ["Cam", "Eileen Collins"] || people.map { $0["name"] as? String } == ["Eileen Collins", "Cam"])
        #expect(try Tool.run(["search", "person:eileen"] + db).lines.sorted() == Array(astronauts.prefix(2)))

        // Bad requests: a sentence and status 1, nothing recorded.
        let unknown = try Tool.run(["people", "name", "99", "X"] + db)
        #expect(unknown.status == 1 && unknown.stderr.contains("no person has the id 99"), "\(unknown.stderr)")
        let noFace = try Tool.run(["people", "hide", path("astronaut-1.jpg"), "4"] + db)
        #expect(noFace.status == 1 && noFace.stderr.contains("has 1 face; face 4 is not one of them"), "\(noFace.stderr)")
        let noPerson = try Tool.run(["search", "person:zed"] + db)
        #expect(noPerson.status != 0 && noPerson.stderr.contains("no person is called 'zed'"), "\(noPerson.stderr)")
    }

    @Test func aRunKilledWhileGroupingLosesNothing() throws {
        let fixture = try Self.twoPeople("people-kill")
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        let person = try #require(try Self.people(db).first?["id"] as? Int)
        // Killed inside the transaction that stores the regrouping after the name: the name is kept
        // (it was committed before), and the next command groups again.
        let environment = Tool.environment(dataHome: fixture.dataHome, extra: ["CLASSIFY_CRASH_AT": "grouping:1"])
        let killed = try Tool.run(["people", "name", String(person), "Ann"] + db, environment: environment)
        #expect(killed.status != 0)
        #expect(try Self.people(db).contains { $0["name"] as? String == "Ann" })
        #expect(try Tool.run(["search", "person:ann"] + db).lines.count == 3)
    }

    @Test(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
    func aPostgreSQLCopyKeepsPeopleAndTheirCorrections() throws {
        let fixture = try Self.twoPeople("people-postgres")
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        let person = try #require(try Self.people(db).first?["id"] as? Int)
        #expect(try Tool.run(["people", "name", String(person), "Ann"] + db).status == 0)
        let database = try DevPostgres.freshDatabase()
        let copied = try Tool.run(["copy", "--from", fixture.database.path, "--to", database])
        #expect(copied.status == 0, "\(copied.stderr)")
        let pg = ["--db", database]
        #expect(try Tool.run(["search", "person:ann"] + pg).lines == (try Tool.run(["search", "person:ann"] + db).lines))
        #expect(try Self.people(pg).map { $0["name"] as? String } == (try Self.people(db).map { $0["name"] as? String }))
        // A correction on the server regroups there.
        #expect(try Tool.run(["people", "hide", try #require(try Tool.run(["search", "person:ann"] + pg).lines.first), "1"] + pg).status == 0)
        #expect(try Tool.run(["search", "person:ann"] + pg).lines.count == 2)
    }

    /// A sidecar as digiKam writes one: a region named `name` over `box` (pixels of a `width` x
    /// `height` image, drawn a little wider and shorter than ours), and a named region over no face.
    static func digiKamSidecar(width: Double, height: Double, box: [Double], name: String) -> String {
        TestXMP.faceRegions(width: width, height: height, [
            TestXMP.Region(name: name, x: box[0] - box[2] * 0.05, y: box[1] + box[3] * 0.05, width: box[2] * 1.1, height: box[3] * 0.9),
            TestXMP.Region(name: "Nobody Here", x: 0.025 * width, y: 0.025 * height, width: 0.05 * width, height: 0.05 * height),
        ])
    }

    /// `export --xmp` writes the faces as MWG regions with the people's names (exiftool reads them
    /// as digiKam and Lightroom do), again without change when nothing changed; `index` reads the
    /// names another tool wrote in a sidecar's regions as facts, so the person is named here too.
    @Test(.enabled(if: ExifTool.isInstalled, "needs exiftool (Scripts/bootstrap installs it)"))
    func xmpFaceRegionsGoOutWithNamesAndComeBackIn() throws {
        let fixture = try Self.twoPeople("people-xmp")
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        #expect(try Tool.run(["index", fixture.photos.path] + db).status == 0)
        let astronaut = try #require(try Self.people(db).first { ($0["sample"] as? String)?.contains("/astronaut-") == true }?["id"] as? Int)
        #expect(try Tool.run(["people", "name", String(astronaut), "Eileen Collins"] + db).status == 0)
        let exported = try Tool.run(["export", "--xmp"] + db)
        #expect(exported.status == 0, "\(exported.stderr)")
        let sidecar = fixture.photos.appending(path: "astronaut-1.xmp").path
        let tags = try ExifTool.xmpTags(sidecar)
        let info = try #require(tags["XMP-mwg-rs:RegionInfo"] as? [String: Any], "\(tags)")
        let regions = try #require(info["RegionList"] as? [[String: Any]], "\(info)")
        #expect(regions.count == 1 && regions[0]["Name"] as? String == "Eileen Collins" && regions[0]["Type"] as? String == "Face", "\(regions)")
        let area = try #require(regions[0]["Area"] as? [String: Any])
        #expect(area["Unit"] as? String == "normalized" && ((area["W"] as? NSNumber)?.doubleValue ?? 0) > 0.05, "\(area)")
        let dimensions = try #require(info["AppliedToDimensions"] as? [String: Any])
        #expect((dimensions["W"] as? NSNumber)?.intValue ?? 0 > 0 && dimensions["Unit"] as? String == "pixel", "\(dimensions)")
        // An unnamed person's faces are regions without a name; a second export changes nothing.
        let camera = try ExifTool.xmpTags(fixture.photos.appending(path: "camera-1.xmp").path)
        #expect(((camera["XMP-mwg-rs:RegionInfo"] as? [String: Any])?["RegionList"] as? [[String: Any]])?.first?["Name"] == nil)
        let before = try Data(contentsOf: URL(fileURLWithPath: sidecar))
        #expect(try Tool.run(["export", "--xmp"] + db).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: sidecar)) == before)

        // Another tool's sidecar names the face: a fresh index of the photo reads it as a fact.
        let elsewhere = try Fixture.empty("people-xmp-import")
        defer { elsewhere.remove() }
        try FileManager.default.copyItem(at: fixture.photos.appending(path: "astronaut-2.jpg"), to: elsewhere.photos.appending(path: "astronaut.jpg"))
        let show = try Self.json(try Tool.run(["show", fixture.photos.appending(path: "astronaut-2.jpg").path, "--format", "json"] + db))
        let face = try #require((show["faces"] as? [[String: Any]])?.first)
        let (width, height) = (Double(show["width"] as? Int ?? 1), Double(show["height"] as? Int ?? 1))
        let box = ["x", "y", "width", "height"].map { ((face[$0] as? NSNumber)?.doubleValue ?? 0) }
        let digiKam = Self.digiKamSidecar(width: width, height: height, box: box, name: "Sally Ride")
        try Data(digiKam.utf8).write(to: elsewhere.photos.appending(path: "astronaut.xmp"))
        let other = ["--db", elsewhere.database.path]
        let indexed = try Tool.run(["index", elsewhere.photos.path] + other)
        #expect(indexed.status == 0 && indexed.stdout.contains("names of 1 faces read from XMP face regions"), "\(indexed.stdout)")
        #expect(try Self.people(other).map { $0["name"] as? String } == ["Sally Ride"])
        #expect(try Tool.run(["search", "person:sally"] + other).lines == [elsewhere.photos.appending(path: "astronaut.jpg").path])
        // Their regions stay as they were when this index exports.
        #expect(try Tool.run(["export", "--xmp"] + other).status == 0)
        let kept = try String(contentsOf: elsewhere.photos.appending(path: "astronaut.xmp"), encoding: .utf8)
        #expect(kept.contains("Nobody Here") && kept.contains(#"mwg-rs:Name="Sally Ride""#))
        // A person's own word beats the imported name, and a later index does not import it again.
        let sally = try #require(try Self.people(other).first?["id"] as? Int)
        #expect(try Tool.run(["people", "name", String(sally), "Sally K. Ride"] + other).status == 0)
        try FileManager.default.copyItem(at: fixture.photos.appending(path: "astronaut-3.jpg"), to: elsewhere.photos.appending(path: "more.jpg"))
        #expect(!(try Tool.run(["index", elsewhere.photos.path] + other).stdout.contains("read from XMP")))
        #expect(try Self.people(other).map { $0["name"] as? String } == ["Sally K. Ride"])
    }

    /// A photo indexed without faces gets them later from the faces backfill, which reads its
    /// sidecar's names too.
    @Test func theFacesBackfillReadsSidecarNamesToo() throws {
        let fixture = try Fixture.empty("people-xmp-backfill")
        defer { fixture.remove() }
        let db = ["--db", fixture.database.path]
        let photo = fixture.photos.appending(path: "astronaut.jpg")
        try Data(try Self.variants(of: "astronaut.png")[2]).write(to: photo)
        #expect(try Tool.run(["index", fixture.photos.path, "--no-faces"] + db).status == 0)
        // Where the face is: a throwaway index with faces.
        let scratch = fixture.root.appending(path: "scratch.sqlite").path
        #expect(try Tool.run(["index", fixture.photos.path, "--db", scratch]).status == 0)
        let show = try Self.json(try Tool.run(["show", photo.path, "--format", "json", "--db", scratch]))
        let face = try #require((show["faces"] as? [[String: Any]])?.first)
        let box = ["x", "y", "width", "height"].map { ((face[$0] as? NSNumber)?.doubleValue ?? 0) }
        let sidecar = Self.digiKamSidecar(width: Double(show["width"] as? Int ?? 1), height: Double(show["height"] as? Int ?? 1), box: box, name: "Sally Ride")
        try Data(sidecar.utf8).write(to: fixture.photos.appending(path: "astronaut.xmp"))
        let indexed = try Tool.run(["index", fixture.photos.path] + db)
        #expect(indexed.stdout.contains("faces added to 1 photo") && indexed.stdout.contains("names of 1 faces read from XMP"), "\(indexed.stdout)")
        #expect(try Self.people(db).map { $0["name"] as? String } == ["Sally Ride"])
    }
}
