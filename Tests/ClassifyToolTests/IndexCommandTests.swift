import Foundation
import Testing

/// The library fixture, indexed once (the first index run is the expensive part) and then only
/// read by the tests of `IndexedLibraryTests`.
private let indexedLibrary = Task { () throws -> (Fixture, Tool.Result) in
    let fixture = try Fixture.library()
    let result = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path])
    return (fixture, result)
}

/// `index` once over the library fixture, then `search`, `show`, `stats` and `labels` on it.
@Suite struct IndexedLibraryTests {
    private func library() async throws -> (fixture: Fixture, first: Tool.Result) {
        let (fixture, result) = try await indexedLibrary.value
        return (fixture, result)
    }

    private func run(_ arguments: [String]) async throws -> Tool.Result {
        let fixture = try await library().fixture
        return try Tool.run(arguments + ["--db", fixture.database.path])
    }

    @Test func firstRunPrintsTheSummaryAndTheFirstFailures() async throws {
        let (fixture, result) = try await library()
        #expect(result.status == 2, "bad files make the exit status 2")
        let summary = try #require(result.lines.first)
        #expect(summary.hasPrefix("done in "))
        #expect(summary.hasSuffix(": 3 new, 0 updated, 0 moved, 0 copied, 0 touched, 0 unchanged, 0 removed, 7 failed"))
        #expect(result.lines[1] == "failed (7):")
        let failures = result.lines[2..<9]
        for (path, stage) in fixture.bad {
            #expect(failures.contains { $0.hasPrefix("  \(path): \(stage): ") }, "\(path) is listed with its stage")
        }
        #expect(result.lines[9] == "list all: classify-tool search --failed --db \(fixture.database.path)")
        #expect(result.lines.count == 10)
        // Not a terminal: no progress line, and --db given, so no note about where the index is.
        #expect(!result.stderr.contains("\r"))
        #expect(result.stderr.isEmpty)
    }

    @Test func searchCatPrintsExactlyTheCat() async throws {
        let fixture = try await library().fixture
        let result = try await run(["search", "cat"])
        #expect(result.status == 0)
        #expect(result.stdout == fixture.cat + "\n")
        #expect(result.stderr == "1 result\n")
    }

    @Test func searchFailedListsTheBadFilesWithStages() async throws {
        let fixture = try await library().fixture
        let result = try await run(["search", "--failed"])
        #expect(result.status == 0)
        var listed: [String: String] = [:]
        for line in result.lines {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            try #require(parts.count == 2, "\(line)")
            listed[parts[0]] = String(parts[1].prefix { $0 != ":" })
        }
        #expect(listed == fixture.bad)
    }

    @Test func searchJSONCarriesScoresAndLabels() async throws {
        let fixture = try await library().fixture
        let result = try await run(["search", "cat OR espresso", "--format", "json", "--facets", "3"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["total"] as? Int == 2)
        #expect(object["query"] as? String == "cat OR espresso")
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(Set(results.compactMap { $0["path"] as? String }) == [fixture.cat, fixture.coffee])
        let scores = results.compactMap { $0["score"] as? Double }
        #expect(scores.count == 2 && scores == scores.sorted(by: >))
        let cat = try #require(results.first { $0["path"] as? String == fixture.cat })
        #expect(cat["width"] as? Int == 385)
        let labels = try #require(cat["labels"] as? [[String: Any]])
        #expect(labels.contains { $0["identifier"] as? String == "cat" && ($0["confidence"] as? Double ?? 0) > 0.9 })
        let facets = try #require(object["facets"] as? [[String: Any]])
        #expect(facets.count == 3)
        #expect(facets.allSatisfy { $0["count"] is Int && $0["identifier"] is String })
    }

    @Test func searchFiltersNarrowTheResults() async throws {
        let fixture = try await library().fixture
        // An empty query matches every classified image; filters decide.
        #expect(try await run(["search", "--sort", "path"]).lines == [fixture.cat, fixture.coffee, fixture.rocket].sorted())
        #expect(try await run(["search", "--under", fixture.photos.appending(path: "nested").path, "--sort", "path"]).lines == [fixture.coffee, fixture.rocket].sorted())
        #expect(try await run(["search", "--min-width", "385"]).lines == [fixture.cat])
        #expect(try await run(["search", "--type", "png"]).lines == [])
        #expect(try await run(["search", "--min-size", "20KB", "--max-size", "22KB"]).lines == [fixture.cat])
        #expect(try await run(["search", "--after", "2000-01-01"]).lines.count == 3)
        #expect(try await run(["search", "--before", "2000-01-01"]).lines == [])
        #expect(try await run(["search", "cat", "--min-confidence", "0.99"]).lines == [])
        #expect(try await run(["search", "--untagged", "--min-confidence", "0.9", "--sort", "path"]).lines == [fixture.coffee, fixture.rocket].sorted())
        #expect(try await run(["search", "cat", "--filter", "high-precision"]).lines == [fixture.cat])
        let pageTwo = try await run(["search", "--sort", "path", "--limit", "1", "--page", "2"])
        #expect(pageTwo.lines == [[fixture.cat, fixture.coffee, fixture.rocket].sorted()[1]])
        #expect(pageTwo.stderr == "3 results, page 2 of 3\n")
    }

    @Test func searchSyntaxErrorExitsOneWithACaret() async throws {
        let result = try await run(["search", "dog AND ("])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("^"))
    }

    @Test func showPrintsWhatTheIndexKnows() async throws {
        let fixture = try await library().fixture
        let table = try await run(["show", fixture.cat, "--top", "5"])
        #expect(table.status == 0)
        #expect(table.lines.first == fixture.cat)
        #expect(table.stdout.contains("  size      385x256, "))
        #expect(table.stdout.contains("with efficientnet-lite0"))
        #expect(table.lines.contains { $0.hasSuffix("  cat") })

        let json = try await run(["show", fixture.cat, "--format", "json", "--top", "3"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["path"] as? String == fixture.cat)
        #expect(object["width"] as? Int == 385 && object["height"] as? Int == 256)
        #expect(object["size"] as? Int == 21092)
        #expect((object["labels"] as? [Any])?.count == 3)
        #expect((object["contentHash"] as? String)?.isEmpty == false)

        let failed = try await run(["show", fixture.photos.appending(path: "text.jpg").path])
        #expect(failed.status == 0)
        #expect(failed.stdout.contains("  FAILED    decode: "))

        let missing = try await run(["show", fixture.photos.appending(path: "nothing.jpg").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("is not in the index"))
    }

    @Test func statsCountsImagesAndFailures() async throws {
        let fixture = try await library().fixture
        let result = try await run(["stats", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["images"] as? Int == 3)
        #expect(object["failed"] as? Int == 7)
        #expect(object["database"] as? String == fixture.database.path)
        #expect((object["databaseBytes"] as? Int ?? 0) > 0)
        #expect((object["labels"] as? Int ?? 0) > 1000)
        let models = try #require(object["models"] as? [[String: Any]])
        #expect(models.count == 1 && (models[0]["model"] as? String ?? "").hasPrefix("efficientnet-lite0"))
        #expect(models[0]["images"] as? Int == 10)

        let table = try await run(["stats"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.lines.contains("images        3 classified, 7 failed"), "\(table.stdout)")
    }

    @Test func labelsShowImageCountsFromTheIndex() async throws {
        let result = try await run(["labels", "cat"])
        #expect(result.status == 0)
        #expect(result.lines.first == "cat  (cat; 7 classes; 1 image)", "the exact match comes first, with its count")
        // The count is what `search` finds.
        let search = try await run(["search", "cat"])
        #expect(search.lines.count == 1)

        let used = try await run(["labels", "--used", "--format", "json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(used.stdout.utf8)) as? [[String: Any]])
        let counts = objects.compactMap { $0["images"] as? Int }
        #expect(counts.count == objects.count && !counts.isEmpty)
        #expect(counts == counts.sorted(by: >), "most frequent first")
        #expect(counts.allSatisfy { (1...3).contains($0) })
        #expect(objects.contains { $0["identifier"] as? String == "espresso" })
    }

    @Test func secondRunOnlyRechecksWhatCannotBeCompared() async throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let first = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path, "--quiet"])
        #expect(first.status == 2)
        let second = try Tool.run(["index", fixture.photos.path, "--db", fixture.database.path, "--quiet"])
        // Links with no target have no content to compare, so they are reported again; the
        // files that failed before and did not change are unchanged.
        #expect(second.lines.first?.hasSuffix(": 0 new, 0 updated, 0 moved, 0 copied, 0 touched, 8 unchanged, 0 removed, 2 failed") == true, "\(second.stdout)")
        #expect(second.status == 2)
        #expect(second.stderr.isEmpty, "--quiet")
    }
}

/// Incremental runs, the default database, hidden files and excludes, on small private fixtures.
@Suite struct IndexCommandTests {
    /// A fixture with the three good photos only.
    private func goodPhotos() throws -> Fixture { try Fixture.goodPhotos() }

    private func summary(_ result: Tool.Result) -> String {
        guard let line = result.lines.first, let colon = line.range(of: ": ") else { return result.stdout + result.stderr }
        return String(line[colon.upperBound...])
    }

    @Test func movedDeletedAndChangedFilesAreFollowed() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let arguments = ["index", fixture.photos.path, "--db", fixture.database.path]
        let first = try Tool.run(arguments)
        #expect(first.status == 0)
        #expect(summary(first) == "3 new, 0 updated, 0 moved, 0 copied, 0 touched, 0 unchanged, 0 removed, 0 failed")

        let manager = FileManager.default
        let movedCat = fixture.photos.appending(path: "sub/my cat.jpg")
        try manager.moveItem(at: fixture.photos.appending(path: "cat-chelsea.jpg"), to: movedCat)
        try manager.removeItem(at: fixture.photos.appending(path: "rocket.jpg"))
        let coffee = fixture.photos.appending(path: "coffee-cup.jpg")
        try Fixture.withComment("edited", try Data(contentsOf: coffee)).write(to: coffee)
        let second = try Tool.run(arguments)
        #expect(second.status == 0)
        #expect(summary(second) == "0 new, 1 updated, 1 moved, 0 copied, 0 touched, 0 unchanged, 1 removed, 0 failed")
        #expect(try Tool.run(["search", "cat", "--db", fixture.database.path]).lines == [movedCat.path])
        #expect(try Tool.run(["search", "--db", fixture.database.path]).lines.count == 2)
    }

    @Test func defaultDatabaseIsUnderXDGDataHomeAndNamedOnce() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let environment = Tool.environment(dataHome: fixture.dataHome)
        let expected = fixture.dataHome.appending(path: "classify-tool/index.sqlite").path
        let result = try Tool.run(["index", fixture.photos.path, "--jobs", "1"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stderr == "index: \(expected)\n")
        #expect(FileManager.default.fileExists(atPath: expected))
        #expect(try Tool.run(["search", "cat"], environment: environment).lines == [fixture.photos.appending(path: "cat-chelsea.jpg").path])

        // Without XDG_DATA_HOME: ~/.local/share.
        var homeOnly = environment
        homeOnly["XDG_DATA_HOME"] = nil
        homeOnly["HOME"] = fixture.root.appending(path: "home").path
        let stats = try Tool.run(["stats", "--json"], environment: homeOnly)
        #expect(stats.status == 1, "no index there yet")
        #expect(stats.stderr.contains(fixture.root.appending(path: "home/.local/share/classify-tool/index.sqlite").path))
    }

    @Test func hiddenFilesAndExcludes() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let manager = FileManager.default
        try manager.createDirectory(at: fixture.photos.appending(path: ".thumbnails"), withIntermediateDirectories: true)
        let cat = try Data(contentsOf: Fixture.sourcePhotos.appending(path: "cat-chelsea.jpg"))
        try Fixture.withComment("hidden", cat).write(to: fixture.photos.appending(path: ".thumbnails/cat.jpg"))
        try Fixture.withComment("dot", cat).write(to: fixture.photos.appending(path: "sub/.cat.jpg"))

        let database = fixture.database.path
        let plain = try Tool.run(["index", fixture.photos.path, "--db", database, "--exclude", "rocket*"])
        #expect(summary(plain).hasPrefix("2 new,"))
        #expect(try Tool.run(["search", "cat", "--db", database]).lines == [fixture.photos.appending(path: "cat-chelsea.jpg").path])

        let hidden = try Tool.run(["index", fixture.photos.path, "--db", database, "--include-hidden", "--exclude", "*/.thumbnails/*"])
        #expect(summary(hidden).hasPrefix("2 new,"), "rocket and sub/.cat.jpg")
        #expect(try Tool.run(["search", "cat", "--db", database, "--sort", "path"]).lines
            == [fixture.photos.appending(path: "cat-chelsea.jpg").path, fixture.photos.appending(path: "sub/.cat.jpg").path])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) (util-linux) for a pseudo-terminal"))
    func progressIsDrawnOnATerminal() throws {
        let fixture = try goodPhotos()
        defer { fixture.remove() }
        let command = [Tool.executable.path, "index", fixture.photos.path, "--db", fixture.database.path]
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = Tool.environment(dataHome: fixture.dataHome)
        let result = try Tool.capture(process) { _ in }
        #expect(result.status == 0)
        // stdout and stderr share the terminal: a redrawn status line, then the summary.
        #expect(result.stdout.contains("\r\u{1B}[K"))
        #expect(result.stdout.range(of: #"\d+/\d+\+? .*img/s"#, options: .regularExpression) != nil, "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("3 new, 0 updated"))
    }

    @Test func missingFolderAndMissingIndexExitOne() throws {
        let fixture = try Fixture.empty("missing")
        defer { fixture.remove() }
        let missing = try Tool.run(["index", fixture.root.appending(path: "nope").path, "--db", fixture.database.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))
        let noIndex = try Tool.run(["search", "cat", "--db", fixture.database.path])
        #expect(noIndex.status == 1)
        #expect(noIndex.stderr.contains("no index at \(fixture.database.path)"))
        #expect(!FileManager.default.fileExists(atPath: fixture.database.path), "search never creates an index")
    }
}
