import Foundation
import GRDB
import Testing

/// One scenario, written through the command line into a fresh SQLite file and a fresh PostgreSQL
/// database, that must leave both answering every read command the same (see ``IndexAnswers``;
/// what is normalised and why: ``Normalised``): the first index run of a folder with a file that
/// fails; a second run after a file changed, one moved, one copied, one deleted, one added and one
/// touched; corrections and a user label, then a run after the corrected file moved; a vocabulary
/// and label-name change and then a taxonomy whose parents changed, each installed by an index
/// run with `--model`; and copies of both indexes to the other backend, compared with their
/// originals and indexed again. So the PostgreSQL writers (runs, workers, batches, corrections,
/// taxonomy installs, copies) run under the same expectations as SQLite's.
///
/// Black box: only `classify-tool` is run, so the suite holds whatever the libraries' seams are.
/// Skipped, saying why, where PostgreSQL is not installed.
@Suite(.enabled(if: DevPostgres.url != nil, DevPostgres.skipReason))
struct BackendBehaviourTests {
    @Test func theSameScenarioLeavesBothBackendsAnsweringTheSame() throws {
        let folder = try ScenarioFolder.make()
        defer { folder.remove() }
        let pair = try BackendPair(folder)

        try firstRun(pair)
        try fileChanges(pair)
        try corrections(pair)
        try taxonomyChanges(pair)
        try copies(pair)
    }

    /// A run in which contents change places: the coffee file gets the rocket's bytes while the
    /// rocket moves away, and the coffee's bytes come back under a new name. Which of these count
    /// as moved, copied or new depends on the order the files are resolved in (a known
    /// difference, see ``BackendPair/contentChangesPlaces``); what the index holds afterwards
    /// must not.
    @Test func contentsThatChangePlacesInOneRunEndTheSame() throws {
        let folder = try ScenarioFolder.make()
        defer { folder.remove() }
        let pair = try BackendPair(folder)
        try pair.index([], "first run")
        let rocket = try Data(contentsOf: URL(fileURLWithPath: folder.path("trips/rocket.jpg")))
        let coffee = try Data(contentsOf: URL(fileURLWithPath: folder.path("home/coffee.jpg")))
        try folder.write("home/coffee.jpg", rocket, modified: ScenarioFolder.time(20))
        try folder.move("trips/rocket.jpg", to: "archive/rocket.jpg")
        try folder.write("new/coffee.jpg", coffee, modified: ScenarioFolder.time(21))

        let counts = try pair.index([], "after the contents changed places", knownDifference: BackendPair.contentChangesPlaces)
        #expect(["new", "updated", "moved", "copied"].reduce(0) { $0 + (counts[$1] ?? 0) } == 3 && counts["removed"] == 0, "\(counts)")
        let answers = try pair.expectSameAnswers("after the contents changed places", gone: [folder.path("trips/rocket.jpg")])
        #expect(try answers.shownLabels(folder.path("new/coffee.jpg")).contains("espresso"))
        #expect(!(try answers.shownLabels(folder.path("home/coffee.jpg")).contains("espresso")))
        #expect(try answers.searchPaths(["--sort", "path"]).count == 6)
    }

    /// Faces on both: a run without faces keeps the stored faces and the face label (below person)
    /// on both backends, and an index built without faces gets them on the next run, without
    /// classifying again.
    @Test func runsWithAndWithoutFacesKeepTheSameFaces() throws {
        let folder = ScenarioFolder(fixture: try Fixture.empty("backends-faces"))
        defer { folder.remove() }
        try folder.write("people/astronaut.png", try Data(contentsOf: URL(fileURLWithPath: FacesCommandTests.astronaut)), modified: ScenarioFolder.time(1))
        try folder.write("home/cat.jpg", try ScenarioFolder.photo("cat-chelsea.jpg", comment: "cat"), modified: ScenarioFolder.time(2))
        let astronaut = folder.path("people/astronaut.png")
        let pair = try BackendPair(folder)

        var counts = try pair.index(["--no-faces"], "a first run without faces")
        #expect(counts["new"] == 2, "\(counts)")
        var answers = try pair.expectSameAnswers("without faces")
        #expect(try answers.searchPaths(["face"]).isEmpty)
        counts = try pair.index([], "a run with faces")
        #expect(counts["new"] == 0 && counts["updated"] == 0 && counts["unchanged"] == 2, "\(counts)")
        answers = try pair.expectSameAnswers("after faces were added")
        #expect(try answers.searchPaths(["face"]) == [astronaut])
        #expect(try answers.searchPaths(["faces:1"]) == [astronaut])
        // Each face got its descriptor, on both (the stats JSON is one of the answers compared).
        #expect(try Self.describedFaces(pair) == 1)

        // An index whose faces were stored before it recognised people: the next run describes
        // them from their stored boxes, without detecting or classifying again.
        let sqlite = try DatabaseQueue(path: pair.sqlite)
        try sqlite.write { try $0.execute(sql: "UPDATE image_faces SET descriptors = NULL") }
        try sqlite.close()
        let cleared = DevPostgres.run("/usr/bin/env", ["psql", pair.postgres, "-At", "-v", "ON_ERROR_STOP=1", "-c", "UPDATE image_faces SET descriptors = NULL"])
        try #require(cleared.status == 0, "psql: \(cleared.stderr)")
        #expect(try Self.describedFaces(pair) == 0)
        let described = try pair.run(["index", folder.photos.path])
        for output in [described.sqlite, described.postgres] {
            #expect(output.stdout.contains("faces described for recognition in 1 photo indexed before"), "\(output.stdout)")
            #expect(output.stdout.contains("0 new, 0 updated"), "\(output.stdout)")
        }
        #expect(try Self.describedFaces(pair) == 1)
        _ = try pair.expectSameAnswers("after the faces were described")
        counts = try pair.index(["--no-faces"], "a second run without faces")
        #expect(counts["unchanged"] == 2, "\(counts)")
        answers = try pair.expectSameAnswers("after a run without faces")
        #expect(try answers.searchPaths(["face"]) == [astronaut], "the face label stays while images carry it")
        #expect(try answers.searchPaths(["faces:1"]) == [astronaut])
    }

    /// `stats --json`'s count of faces described for recognition, the same on both backends.
    static func describedFaces(_ pair: BackendPair) throws -> Int? {
        let outputs = try pair.run(["stats", "--json"])
        let counts = try [outputs.sqlite, outputs.postgres].map { output -> Int? in
            let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
            return (object?["faces"] as? [String: Any])?["described"] as? Int
        }
        #expect(counts[0] == counts[1], "SQLite \(String(describing: counts[0])), PostgreSQL \(String(describing: counts[1]))")
        return counts[0]
    }

    /// Photos that state their date taken, position and camera (EXIF in JPEG, PNG, WebP and TIFF; an
    /// XMP sidecar) and one that states nothing: the date, camera, lens and position terms answer
    /// the same on both backends, and a run over an index whose metadata was never read (as one
    /// written before it was stored) fills it in without classifying again.
    @Test func datesCamerasAndPositionsAnswerTheSame() throws {
        let folder = ScenarioFolder(fixture: try Fixture.empty("backends-metadata"))
        defer { folder.remove() }
        let fixtures = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/metadata")
        let files = ["jpeg-full.jpg", "png-exif.png", "webp-exif.webp", "tiff-digitized.tif", "sidecar.jpg", "sidecar.jpg.xmp"]
        for (hour, name) in files.enumerated() {
            try folder.write("trips/\(name)", try Data(contentsOf: fixtures.appending(path: name)), modified: ScenarioFolder.time(12 + hour))
        }
        // Noon UTC: 1 January 2024 in every time zone within 11 hours of UTC.
        try folder.write("home/cat.jpg", try ScenarioFolder.photo("cat-chelsea.jpg", comment: "cat"), modified: ScenarioFolder.time(12))
        let pair = try BackendPair(folder)
        let counts = try pair.index(["--no-faces"], "a first run")
        #expect(counts["new"] == 6 && counts["failed"] == 0, "\(counts)")
        let answers = try pair.expectSameAnswers("dates, cameras and positions")
        func found(_ query: [String]) throws -> Set<String> { Set(try answers.searchPaths(query)) }
        func trips(_ names: String...) -> Set<String> { Set(names.map { folder.path("trips/\($0)") }) }
        #expect(try found(["taken:2023"]) == trips("jpeg-full.jpg"))
        #expect(try found(["after:2020", "before:2022"]) == trips("png-exif.png", "webp-exif.webp"))
        #expect(try found(["taken:2016..2019-12"]) == trips("sidecar.jpg", "tiff-digitized.tif"))
        // The cat states no date: its file time stands in.
        #expect(try found(["taken:>=2024-01-01"]) == [folder.path("home/cat.jpg")])
        #expect(try found(["modified:2024-01-01"]).count == 6)
        #expect(try found(["camera:iphone"]) == trips("jpeg-full.jpg"))
        #expect(try found(["camera:\"canon eos\""]) == trips("tiff-digitized.tif"))
        #expect(try found(["lens:wide"]) == trips("jpeg-full.jpg"))
        #expect(try found(["near:48.85,2.35,10km"]) == trips("jpeg-full.jpg"))
        #expect(try found(["near:35,136,200km"]) == trips("sidecar.jpg"))
        // The Eiffel Tower's nearest place is a district of Paris; Paris still finds it.
        #expect(try found(["place:paris"]) == trips("jpeg-full.jpg"))
        #expect(try found(["place:new-york"]) == trips("tiff-digitized.tif"))
        #expect(try found(["country:japan"]) == trips("png-exif.png", "sidecar.jpg"))
        #expect(try found(["country:fr"]) == trips("jpeg-full.jpg"))
        // Plain words: places, years and months become the same filters on both backends; a month
        // of a photo that states no date is its file time's, in this computer's time zone.
        #expect(try found(["paris"]) == trips("jpeg-full.jpg"))
        #expect(try found(["new", "york"]) == trips("tiff-digitized.tif"))
        #expect(try found(["japan"]) == trips("png-exif.png", "sidecar.jpg"))
        #expect(try found(["2021"]) == trips("png-exif.png"))
        #expect(try found(["june"]) == trips("jpeg-full.jpg"))
        #expect(try found(["january"]) == [folder.path("home/cat.jpg")])
        #expect(try found(["july", "2019"]) == trips("tiff-digitized.tif"))
        #expect(try found(["cat", "in", "2024"]) == [folder.path("home/cat.jpg")])
        #expect(try found(["cat", "in", "2023"]).isEmpty)
        // Newest taken first; the cat by its file time.
        #expect(try answers.searchPaths(["--sort", "taken"]) == [folder.path("home/cat.jpg")] + [
            "jpeg-full.jpg", "png-exif.png", "webp-exif.webp", "tiff-digitized.tif", "sidecar.jpg",
        ].map { folder.path("trips/\($0)") })
    }

    /// Step 1: five photos and a file cut off after 3,000 bytes.
    private func firstRun(_ pair: BackendPair) throws {
        let counts = try pair.index([], "first run")
        #expect(counts["new"] == 5 && counts["failed"] == 1, "\(counts)")
        let answers = try pair.expectSameAnswers("first run")
        #expect(try answers.searchPaths(["--failed"]) == [pair.folder.path("cut-off.jpg")])
        #expect(try answers.searchPaths(["--sort", "path"]).count == 5)
    }

    /// Step 2: one file of each kind of change, then a second run.
    private func fileChanges(_ pair: BackendPair) throws {
        let folder = pair.folder
        try folder.write("home/coffee.jpg", try ScenarioFolder.photo("rocket.jpg", comment: "was coffee"), modified: ScenarioFolder.time(10))
        try folder.move("trips/rocket.jpg", to: "archive/rocket.jpg")
        try folder.copy("home/cat.jpg", to: "archive/cat copy.jpg", modified: ScenarioFolder.time(11))
        try folder.delete("trips/coffee 2.jpg")
        try folder.write("new/coffee 3.jpg", try ScenarioFolder.photo("coffee-cup.jpg", comment: "coffee 3"), modified: ScenarioFolder.time(12))
        try folder.setModified("trips/rocket 2.jpg", ScenarioFolder.time(13))

        let counts = try pair.index([], "after the file changes")
        for kind in ["new", "updated", "moved", "copied", "touched", "removed"] {
            #expect(counts[kind] == 1, "\(kind): \(counts)")
        }
        let gone = [folder.path("trips/rocket.jpg"), folder.path("trips/coffee 2.jpg")]
        let answers = try pair.expectSameAnswers("after the file changes", gone: gone)
        let all = try answers.searchPaths(["--sort", "path"])
        #expect(all.count == 6 && !all.contains(gone[0]) && !all.contains(gone[1]), "\(all)")
        #expect(Set(try answers.searchPaths(["cat"])) == [folder.path("home/cat.jpg"), folder.path("archive/cat copy.jpg")])
        #expect(try answers.searchPaths(["coffee OR rocket"]).contains(folder.path("home/coffee.jpg")), "the changed file is a rocket now")
    }

    /// Step 3: corrections and a user label (one taken back, one on a missing file), then a run
    /// after the corrected cat moved: the corrections follow its content on both.
    private func corrections(_ pair: BackendPair) throws {
        let folder = pair.folder
        let cat = folder.path("home/cat.jpg"), rocket = folder.path("archive/rocket.jpg"), second = folder.path("trips/rocket 2.jpg")
        let steps: [[String]] = [
            ["tag", "add", cat, rocket, "grandma"],
            ["tag", "remove", cat, "cat"],
            ["tag", "add", folder.path("home/coffee.jpg"), "coffee_mug"],
            ["tag", "add", second, "espresso"],
            ["tag", "clear", second, "espresso"],
            ["tag", "add", folder.path("missing.jpg"), "grandma"],
        ]
        for step in steps { try pair.write(step, "corrections") }
        let copy = folder.path("archive/cat copy.jpg")
        var answers = try pair.expectSameAnswers("after the corrections")
        #expect(Set(try answers.searchPaths(["grandma"])) == [cat, copy, rocket], "a correction covers every file of its content")
        #expect(try answers.searchPaths(["cat"]).isEmpty, "the cat and its copy lost cat")
        #expect(try answers.searchPaths(["coffee_mug"]).contains(folder.path("home/coffee.jpg")))
        #expect(!(try answers.shownLabels(second).contains("espresso")), "the cleared correction is gone")

        try folder.move("home/cat.jpg", to: "moved/cat.jpg")
        let counts = try pair.index([], "after the corrected cat moved")
        #expect(counts["moved"] == 1, "\(counts)")
        answers = try pair.expectSameAnswers("after the corrected cat moved", gone: [cat])
        #expect(Set(try answers.searchPaths(["grandma"])) == [folder.path("moved/cat.jpg"), copy, rocket])
        #expect(try answers.searchPaths(["cat"]).isEmpty)
        #expect(try answers.searchPaths(["coffee_mug"]).contains(folder.path("home/coffee.jpg")))
    }

    /// Step 4: a model whose vocabulary gained a word and one parent label a new name (installed
    /// without classifying again), then one whose taxonomy also moved domestic_cat out from under
    /// cat (a new model stamp: every file classified again, and the removal of cat no longer
    /// covers domestic_cat and its breeds). `labels` reads names from the model, so it is given
    /// the model; search facets and export read them from the index.
    private func taxonomyChanges(_ pair: BackendPair) throws {
        let folder = pair.folder
        let renamed = { (labels: inout [[String: Any]]) throws in
            // A leaf's name comes from model.json; a parent's from taxonomy.json.
            let beverage = try #require(labels.firstIndex { $0["identifier"] as? String == "beverage" })
            labels[beverage]["name"] = "beverage or drink"
        }
        let liftoff = { (words: inout [[String: Any]]) in
            words.append(["word": "liftoff", "labels": ["space_shuttle", "missile"], "reason": "rockets leaving the pad"])
            words.sort { ($0["word"] as? String ?? "") < ($1["word"] as? String ?? "") }
        }
        let words = try folder.editedModel("model-words", taxonomy: renamed, vocabulary: liftoff)
        var counts = try pair.index(["--model", words.path], "after the vocabulary change")
        #expect(counts["updated"] == 0 && counts["new"] == 0 && counts["unchanged"] == 7, "a new vocabulary is no reason to classify again: \(counts)")
        var answers = try pair.expectSameAnswers("after the vocabulary change", model: words.path)
        #expect(Set(try answers.searchPaths(["liftoff"])).isSuperset(of: [folder.path("archive/rocket.jpg"), folder.path("home/coffee.jpg")]))
        #expect(answers["export --format jsonl --filter none"]?.contains("\"name\":\"beverage or drink\"") == true, "the new name is stored")

        let parents = try folder.editedModel("model-parents", taxonomy: { labels in
            try renamed(&labels)
            let cat = try #require(labels.firstIndex { $0["identifier"] as? String == "domestic_cat" })
            labels[cat]["parents"] = ["domestic_animal"]
        }, vocabulary: liftoff)
        counts = try pair.index(["--model", parents.path], "after the taxonomy change", knownDifference: BackendPair.twinsClassifiedAgain)
        #expect((counts["updated"] ?? 0) + (counts["copied"] ?? 0) == 6 && counts["failed"] == 1, "a new taxonomy stamp reads every file again: \(counts)")
        answers = try pair.expectSameAnswers("after the taxonomy change", model: parents.path)
        let cat = try answers.shownLabels(folder.path("moved/cat.jpg"))
        #expect(cat.contains("domestic_cat"), "out from under the removed cat, domestic_cat is the model's again: \(cat)")
        #expect(!cat.contains("cat"), "cat stays removed: \(cat)")
        #expect(Set(try answers.searchPaths(["grandma"])) == [folder.path("moved/cat.jpg"), folder.path("archive/cat copy.jpg"), folder.path("archive/rocket.jpg")])
    }

    /// Step 5: each index copied to the other backend answers as its original, write times
    /// included (a copy keeps them), and an index run over the copy finds nothing to do.
    private func copies(_ pair: BackendPair) throws {
        let folder = pair.folder
        let intoPostgres = try DevPostgres.freshDatabase()
        let intoSQLite = folder.fixture.root.appending(path: "from-postgres.sqlite").path
        let model = folder.fixture.root.appending(path: "model-parents").path
        let there = try Tool.run(["copy", "--from", pair.sqlite, "--to", intoPostgres])
        let back = try Tool.run(["copy", "--from", pair.postgres, "--to", intoSQLite])
        #expect(there.status == 0 && back.status == 0, "\(there.stderr) | \(back.stderr)")
        // "copied N images, ... corrections from A to B in T s": the same counts both ways.
        let counted = { (text: String) in text.components(separatedBy: " from ").first ?? text }
        #expect(counted(there.stdout) == counted(back.stdout) && there.stdout.hasPrefix("copied 7 images, "), "\(there.stdout) | \(back.stdout)")

        let files = try folder.files()
        for (original, copy, step) in [(pair.sqlite, intoPostgres, "SQLite copied into PostgreSQL"), (pair.postgres, intoSQLite, "PostgreSQL copied into SQLite")] {
            let a = try IndexAnswers(database: original, photos: folder.photos, files: files, model: model, exact: true)
            let b = try IndexAnswers(database: copy, photos: folder.photos, files: files, model: model, exact: true)
            a.expectSame(as: b, step)
        }

        let again = try [intoPostgres, intoSQLite].map { copy in
            try Tool.run(["index", folder.photos.path, "--model", model, "--db", copy])
        }
        for (run, copy) in zip(again, [intoPostgres, intoSQLite]) {
            let counts = Normalised.counts(ofIndexSummary: run.stdout)
            #expect(counts["unchanged"] == 7 && counts["new"] == 0 && counts["updated"] == 0 && counts["removed"] == 0, "\(copy): \(run.stdout) \(run.stderr)")
        }
        #expect(Normalised.indexSummary(again[0].stdout) == Normalised.indexSummary(again[1].stdout))
    }
}
