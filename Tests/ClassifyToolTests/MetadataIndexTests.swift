import Foundation
import GRDB
import TagIndex
import Testing

/// Dates taken, positions, cameras and places in a SQLite index through the command line: what a
/// run stores, and how a run over an index whose metadata was never read (written by an earlier
/// version) fills it in without classifying again.
@Suite struct MetadataIndexTests {
    static let fixtures = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/metadata")

    @Test func aRunStoresTheMetadataAndALaterRunFillsWhatIsMissing() throws {
        let folder = try Fixture.empty("metadata-index")
        defer { folder.remove() }
        for name in ["jpeg-full.jpg", "png-exif.png", "sidecar.jpg", "sidecar.jpg.xmp", "jpeg-bogus-zero.jpg"] {
            try FileManager.default.copyItem(at: Self.fixtures.appending(path: name), to: folder.photos.appending(path: name))
        }
        let db = folder.root.appending(path: "index.sqlite").path
        let first = try Tool.run(["index", folder.photos.path, "--db", db, "--no-faces"])
        #expect(first.status == 0 && first.lines.first?.contains(" 4 new,") == true, "\(first)")

        let index = try SQLiteIndex(readingFrom: URL(fileURLWithPath: db))
        let paris = try #require(try index.metadata(forPath: folder.photos.appending(path: "jpeg-full.jpg").path))
        #expect(paris.taken == TakenDate(local: "2023-06-01T14:30:05.120", utcOffsetMinutes: 120, source: .exif, offsetSource: .tag))
        #expect(paris.taken?.iso8601 == "2023-06-01T14:30:05.120+02:00")
        #expect(abs((paris.latitude ?? 0) - 48.8584) < 1e-6 && abs((paris.longitude ?? 0) - 2.2945) < 1e-6)
        #expect(abs((paris.altitude ?? 0) - 35) < 1e-6)
        #expect(paris.cameraName == "Apple iPhone 13")
        #expect(paris.place?.countryCode == "FR")
        // No offset in the file: Tokyo's time zone, from the place at its position.
        let tokyo = try #require(try index.metadata(forPath: folder.photos.appending(path: "png-exif.png").path))
        #expect(tokyo.taken?.iso8601 == "2021-03-04T05:06:07+09:00" && tokyo.taken?.offsetSource == .place)
        #expect(tokyo.place?.countryCode == "JP")
        // The sidecar's date and position fill what the JPEG leaves out.
        let kyoto = try #require(try index.metadata(forPath: folder.photos.appending(path: "sidecar.jpg").path))
        #expect(kyoto.taken?.source == .xmp && kyoto.place?.countryCode == "JP")
        // A zeroed date is unknown (nothing stored: a copy of the file with another time gets the
        // same row); JSON shows the file time in its place, marked as such.
        let zero = try #require(try index.metadata(forPath: folder.photos.appending(path: "jpeg-bogus-zero.jpg").path))
        #expect(zero.taken == nil && zero.latitude == nil && zero.place == nil)
        let zeroShown = try Tool.run(["show", folder.photos.appending(path: "jpeg-bogus-zero.jpg").path, "--format", "json", "--db", db])
        #expect(zeroShown.stdout.contains("\"takenFrom\":\"file\""), "\(zeroShown)")

        // What search and show print.
        let jpeg = folder.photos.appending(path: "jpeg-full.jpg").path
        let shown = try Tool.run(["show", jpeg, "--format", "json", "--db", db])
        let image = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown)")
        #expect(image["taken"] as? String == "2023-06-01T14:30:05.120+02:00" && image["takenFrom"] as? String == "exif")
        let gps = try #require(image["gps"] as? [String: Any])
        #expect(gps["latitude"] as? Double == 48.8584 && gps["longitude"] as? Double == 2.2945 && gps["altitude"] as? Double == 35)
        let place = try #require(image["place"] as? [String: Any])
        #expect(place["countryCode"] as? String == "FR" && place["country"] as? String == "France" && place["name"] != nil)
        #expect((image["camera"] as? [String: Any])?["model"] as? String == "iPhone 13")
        let text = try Tool.run(["show", jpeg, "--db", db])
        #expect(text.stdout.contains("  taken     2023-06-01T14:30:05.120+02:00\n") && text.stdout.contains("  camera    Apple iPhone 13, "), "\(text)")
        let found = try Tool.run(["search", "camera:iphone", "--format", "json", "--db", db])
        let page = try #require(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any], "\(found)")
        let results = try #require(page["results"] as? [[String: Any]])
        #expect(results.count == 1 && results.first?["taken"] as? String == "2023-06-01T14:30:05.120+02:00")
        #expect((results.first?["place"] as? [String: Any])?["countryCode"] as? String == "FR")

        // As an index written before metadata was stored: no rows. The next run reads them again
        // and classifies nothing.
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in try db.execute(sql: "DELETE FROM image_metadata") }
        try queue.close()
        #expect(try index.metadata(forPath: folder.photos.appending(path: "jpeg-full.jpg").path) == nil)
        let again = try Tool.run(["index", folder.photos.path, "--db", db, "--no-faces"])
        #expect(again.status == 0 && again.lines.first?.contains(" 0 new, 0 updated, 0 moved, 0 copied, 0 touched, 4 unchanged,") == true, "\(again)")
        #expect(again.stdout.contains("dates, places and cameras added to 4 photos indexed without them"), "\(again)")
        #expect(try index.metadata(forPath: folder.photos.appending(path: "jpeg-full.jpg").path) == paris)
        let search = try Tool.run(["search", "taken:2023-06", "--db", db])
        #expect(search.lines == [folder.photos.appending(path: "jpeg-full.jpg").path], "\(search)")
        // Plain words: a place and a month; a place inside OR (labels only) says how to search it.
        let word = try Tool.run(["search", "paris", "june", "--db", db])
        #expect(word.lines == [folder.photos.appending(path: "jpeg-full.jpg").path], "\(word)")
        let inOr = try Tool.run(["search", "dog OR paris", "--db", db])
        #expect(inOr.status == 1 && inOr.stderr.contains("To search photos taken there, write place:paris."), "\(inOr)")
        let third = try Tool.run(["index", folder.photos.path, "--db", db, "--no-faces"])
        #expect(!third.stdout.contains("dates, places and cameras added"), "\(third)")
    }

    @Test func noMetadataLeavesThemOutUntilARunWithout() throws {
        let folder = try Fixture.empty("no-metadata")
        defer { folder.remove() }
        try FileManager.default.copyItem(at: Self.fixtures.appending(path: "jpeg-full.jpg"), to: folder.photos.appending(path: "paris.jpg"))
        let db = folder.root.appending(path: "index.sqlite").path
        let paris = folder.photos.appending(path: "paris.jpg").path
        let first = try Tool.run(["index", folder.photos.path, "--db", db, "--no-faces", "--no-metadata"])
        #expect(first.status == 0, "\(first)")
        #expect(try SQLiteIndex(readingFrom: URL(fileURLWithPath: db)).metadata(forPath: paris) == nil)
        #expect(try Tool.run(["search", "camera:iphone", "--db", db]).lines.isEmpty)
        let second = try Tool.run(["index", folder.photos.path, "--db", db, "--no-faces"])
        #expect(second.stdout.contains("dates, places and cameras added to 1 photo indexed without them"), "\(second)")
        #expect(try Tool.run(["search", "camera:iphone", "--db", db]).lines == [paris])
    }
}
