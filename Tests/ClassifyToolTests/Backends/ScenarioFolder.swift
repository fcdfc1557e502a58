import Foundation

/// The photo folder the backend behaviour suite indexes into both a SQLite file and a PostgreSQL
/// database, and the file changes it makes between index runs.
///
/// Every photo is one of the committed test photos (cat, coffee cup, rocket) with its own JPEG
/// comment, so each file has its own content (only a copy shares it), and its own modification
/// time, so no two files tie when sorted by date. One file is the rocket cut off after 3,000
/// bytes: it fails to decode and is stored as a failed row.
///
/// Usage: `let folder = try ScenarioFolder.make(); defer { folder.remove() }`
struct ScenarioFolder: Sendable {
    /// The temporary fixture; `fixture.photos` is the indexed folder.
    let fixture: Fixture

    /// The indexed folder.
    var photos: URL { fixture.photos }

    /// The absolute path of `relative` inside the indexed folder.
    func path(_ relative: String) -> String { photos.appending(path: relative).path }

    /// A committed test photo (`cat-chelsea.jpg`, `coffee-cup.jpg`, `rocket.jpg`) with a JPEG comment.
    static func photo(_ name: String, comment: String) throws -> Data {
        Fixture.withComment(comment, try Data(contentsOf: Fixture.sourcePhotos.appending(path: name)))
    }

    /// A fixed modification time, `hours` after 2024-01-01 00:00 UTC.
    static func time(_ hours: Int) -> Date { Date(timeIntervalSince1970: 1_704_067_200 + Double(hours) * 3600) }

    /// The first layout: four photos in two folders, a second rocket, and one cut-off file.
    static func make() throws -> ScenarioFolder {
        let folder = ScenarioFolder(fixture: try Fixture.empty("backends"))
        let rocket = try Data(contentsOf: Fixture.sourcePhotos.appending(path: "rocket.jpg"))
        try folder.write("home/cat.jpg", try photo("cat-chelsea.jpg", comment: "cat"), modified: time(1))
        try folder.write("home/coffee.jpg", try photo("coffee-cup.jpg", comment: "coffee"), modified: time(2))
        try folder.write("trips/rocket.jpg", try photo("rocket.jpg", comment: "rocket"), modified: time(3))
        try folder.write("trips/coffee 2.jpg", try photo("coffee-cup.jpg", comment: "coffee 2"), modified: time(4))
        try folder.write("trips/rocket 2.jpg", try photo("rocket.jpg", comment: "rocket 2"), modified: time(5))
        try folder.write("cut-off.jpg", rocket.prefix(3000), modified: time(6))
        return folder
    }

    /// Writes `data` at `relative` (folders created) with modification time `modified`.
    func write(_ relative: String, _ data: Data, modified: Date) throws {
        let url = photos.appending(path: relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        try setModified(relative, modified)
    }

    /// Sets the modification time of `relative`.
    func setModified(_ relative: String, _ modified: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path(relative))
    }

    /// Moves `relative` to `destination` (folders created); the modification time stays.
    func move(_ relative: String, to destination: String) throws {
        let target = photos.appending(path: destination)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: path(relative), toPath: target.path)
    }

    /// Copies `relative` to `destination` with modification time `modified`.
    func copy(_ relative: String, to destination: String, modified: Date) throws {
        try write(destination, try Data(contentsOf: URL(fileURLWithPath: path(relative))), modified: modified)
    }

    /// Deletes `relative`.
    func delete(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: path(relative))
    }

    /// Every regular file in the folder, as absolute paths, sorted.
    func files() throws -> [String] {
        let enumerator = FileManager.default.enumerator(at: photos, includingPropertiesForKeys: [.isRegularFileKey])
        var paths: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
                paths.append(url.resolvingSymlinksInPath().path)
            }
        }
        return paths.sorted()
    }

    /// The bundled model with `taxonomy` and `vocabulary` edited, in a folder of the fixture named
    /// `name` (the other files are links to the bundled ones). The edits take the decoded JSON
    /// file and change it in place.
    ///
    /// Usage: `let model = try folder.editedModel("renamed") { _ in } vocabulary: { words in ... }`
    func editedModel(
        _ name: String, taxonomy editTaxonomy: (inout [[String: Any]]) throws -> Void, vocabulary editVocabulary: (inout [[String: Any]]) throws -> Void
    ) throws -> URL {
        let source = Tool.packageRoot.appending(path: "Models/efficientnet-lite0")
        let model = fixture.root.appending(path: name)
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: source.path) where !["taxonomy.json", "vocabulary.json"].contains(file) {
            try FileManager.default.createSymbolicLink(at: model.appending(path: file), withDestinationURL: source.appending(path: file))
        }
        func edit(_ file: String, _ key: String, _ change: (inout [[String: Any]]) throws -> Void) throws {
            let data = try Data(contentsOf: source.appending(path: file))
            guard var document = try JSONSerialization.jsonObject(with: data) as? [String: Any], var entries = document[key] as? [[String: Any]] else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file])
            }
            try change(&entries)
            document[key] = entries
            try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: model.appending(path: file))
        }
        try edit("taxonomy.json", "labels", editTaxonomy)
        try edit("vocabulary.json", "words", editVocabulary)
        return model
    }

    /// Deletes the fixture folder.
    func remove() { fixture.remove() }
}
