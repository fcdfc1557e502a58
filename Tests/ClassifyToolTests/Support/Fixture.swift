import ClassifyTestSupport
import Foundation

/// A temporary folder of photos and bad files, built by the tests from the committed,
/// license-clean photos in Tests/ClassifyTests/Fixtures/photos (a cat, a coffee cup, a rocket).
///
/// Layout of `Fixture.library()` under `root/photos`:
///
///     cat-chelsea.jpg                 the cat
///     nested/café ☕.jpg               the coffee cup (unicode name)
///     nested/deeper/rocket launch.jpg the rocket (name with a space)
///     nested/loop -> ..               a symlink loop back to photos/
///     .hidden/cat copy.jpg            a hidden copy of the cat (skipped by default)
///     empty.jpg                       0 bytes                    (read)
///     random.jpg                      seeded random bytes        (decode)
///     text.jpg                        a line of text             (decode)
///     bad, "quoted".jpg               text, CSV-hostile name     (decode)
///     nested/truncated.jpg            first 3,000 bytes of the rocket (decode)
///     broken.jpg -> nowhere.jpg       a broken symlink           (read)
///     self.jpg -> self.jpg            a link to itself           (read)
///
/// Usage: `let fixture = try Fixture.library(); defer { fixture.remove() }`
struct Fixture: Sendable {
    /// The temporary folder; `photos` is inside it.
    var root: URL
    var photos: URL { root.appending(path: "photos") }
    /// A database path inside the fixture.
    var database: URL { root.appending(path: "index.sqlite") }
    /// Used as XDG_DATA_HOME for runs that should not need --db.
    var dataHome: URL { root.appending(path: "data-home") }

    var cat: String { photos.appending(path: "cat-chelsea.jpg").path }
    var coffee: String { photos.appending(path: "nested/café ☕.jpg").path }
    var rocket: String { photos.appending(path: "nested/deeper/rocket launch.jpg").path }
    var good: [String] { [cat, coffee, rocket] }

    /// Every bad file and the stage its failure is reported at.
    var bad: [String: String] {
        [
            photos.appending(path: "empty.jpg").path: "read",
            photos.appending(path: "random.jpg").path: "decode",
            photos.appending(path: "text.jpg").path: "decode",
            photos.appending(path: "bad, \"quoted\".jpg").path: "decode",
            photos.appending(path: "nested/truncated.jpg").path: "decode",
            photos.appending(path: "broken.jpg").path: "read",
            photos.appending(path: "self.jpg").path: "read",
        ]
    }

    /// The committed test photos.
    static let sourcePhotos = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/photos")

    /// An empty temporary fixture folder.
    static func empty(_ name: String = "fixture") throws -> Fixture {
        let root = FileManager.default.temporaryDirectory.appending(path: "classify-tool-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root.appending(path: "photos"), withIntermediateDirectories: true)
        // Resolve /tmp links so paths printed by the tool (which keeps paths as given) compare equal.
        return Fixture(root: root.resolvingSymlinksInPath())
    }

    /// The three good photos directly in `photos`, and an empty `photos/sub` folder.
    static func goodPhotos(_ name: String = "good") throws -> Fixture {
        let fixture = try empty(name)
        try FileManager.default.createDirectory(at: fixture.photos.appending(path: "sub"), withIntermediateDirectories: true)
        for name in ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"] {
            try FileManager.default.copyItem(at: sourcePhotos.appending(path: name), to: fixture.photos.appending(path: name))
        }
        return fixture
    }

    /// The full layout described above.
    static func library() throws -> Fixture {
        let fixture = try empty("library")
        let manager = FileManager.default
        let photos = fixture.photos
        for folder in ["nested/deeper", ".hidden"] {
            try manager.createDirectory(at: photos.appending(path: folder), withIntermediateDirectories: true)
        }
        try manager.copyItem(at: sourcePhotos.appending(path: "cat-chelsea.jpg"), to: URL(fileURLWithPath: fixture.cat))
        try manager.copyItem(at: sourcePhotos.appending(path: "coffee-cup.jpg"), to: URL(fileURLWithPath: fixture.coffee))
        try manager.copyItem(at: sourcePhotos.appending(path: "rocket.jpg"), to: URL(fileURLWithPath: fixture.rocket))
        try manager.copyItem(at: sourcePhotos.appending(path: "cat-chelsea.jpg"), to: photos.appending(path: ".hidden/cat copy.jpg"))

        try Data().write(to: photos.appending(path: "empty.jpg"))
        var generator = SeededRandom(seed: 42)
        try Data(generator.bytes(5000)).write(to: photos.appending(path: "random.jpg"))
        try Data("hello, \"world\"\n".utf8).write(to: photos.appending(path: "text.jpg"))
        try Data("not a photo\n".utf8).write(to: photos.appending(path: "bad, \"quoted\".jpg"))
        let rocket = try Data(contentsOf: sourcePhotos.appending(path: "rocket.jpg"))
        try rocket.prefix(3000).write(to: photos.appending(path: "nested/truncated.jpg"))

        try manager.createSymbolicLink(atPath: photos.appending(path: "nested/loop").path, withDestinationPath: "..")
        try manager.createSymbolicLink(atPath: photos.appending(path: "broken.jpg").path, withDestinationPath: "nowhere.jpg")
        try manager.createSymbolicLink(atPath: photos.appending(path: "self.jpg").path, withDestinationPath: "self.jpg")
        return fixture
    }

    /// `count` distinct JPEGs (the test photos, each with its own comment segment so every file has
    /// different bytes and is classified rather than recognised as a copy), directly in `photos`.
    static func manyPhotos(_ count: Int) throws -> Fixture {
        let fixture = try empty("many")
        let sources = try ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"].map { try Data(contentsOf: sourcePhotos.appending(path: $0)) }
        for number in 0..<count {
            try withComment("copy \(number)", sources[number % sources.count])
                .write(to: fixture.photos.appending(path: String(format: "photo-%03d.jpg", number)))
        }
        return fixture
    }

    /// A JPEG with a COM segment inserted after SOI; decoders ignore it.
    static func withComment(_ text: String, _ jpeg: Data) -> Data {
        let body = Array(text.utf8)
        let length = body.count + 2
        var segment: [UInt8] = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
        segment += body
        var result = Data(jpeg.prefix(2))
        result.append(contentsOf: segment)
        result.append(jpeg.dropFirst(2))
        return result
    }

    /// Deletes the fixture folder.
    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
