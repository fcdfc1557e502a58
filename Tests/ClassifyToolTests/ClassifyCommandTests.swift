import Foundation
import Testing

/// `classify-tool classify` end to end: formats, filters, bad files, exit statuses.
@Suite struct ClassifyCommandTests {
    /// The JSON array `classify --format json` printed.
    private func jsonArray(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func jsonCarriesSizesObservationsAndFailureStages() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let result = try Tool.run(["classify", fixture.photos.path, "--format", "json", "--top", "5"])
        #expect(result.status == 2, "some files fail, so the exit status is 2")
        #expect(result.stderr.contains("7 of 10 files failed"))
        let entries = try jsonArray(result.stdout)
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0["path"] as? String ?? "", $0) })
        // Good photos, bad files, nothing through the symlink loop, nothing hidden.
        #expect(Set(byPath.keys) == Set(fixture.good + fixture.bad.keys))

        let cat = try #require(byPath[fixture.cat])
        #expect(cat["width"] as? Int == 385)
        #expect(cat["height"] as? Int == 256)
        #expect(cat["error"] == nil)
        let observations = try #require(cat["observations"] as? [[String: Any]])
        #expect(observations.count == 5)
        let identifiers = observations.compactMap { $0["identifier"] as? String }
        #expect(identifiers.contains("cat"))
        #expect(observations.allSatisfy { $0["displayName"] is String })
        let confidences = observations.compactMap { $0["confidence"] as? Double }
        #expect(confidences.count == 5)
        #expect(confidences == confidences.sorted(by: >))
        #expect(confidences.allSatisfy { (0...1).contains($0) })
        #expect(confidences[0] > 0.9)

        for (path, stage) in fixture.bad {
            let entry = try #require(byPath[path])
            let error = try #require(entry["error"] as? [String: String], "\(path) has an error object")
            #expect(error["stage"] == stage, "\(path)")
            #expect(!(error["reason"] ?? "").isEmpty)
            #expect(entry["observations"] == nil)
        }
        let reason = (byPath[fixture.photos.appending(path: "empty.jpg").path]?["error"] as? [String: String])?["reason"] ?? ""
        #expect(reason.contains("empty"))
        let loop = (byPath[fixture.photos.appending(path: "self.jpg").path]?["error"] as? [String: String])?["reason"] ?? ""
        #expect(loop.contains("loop"))
    }

    /// What a photo says of itself comes out with its labels: the date taken with its offset, the
    /// GPS position and the camera; a photo without them (the cat) has none of the three keys.
    @Test func jsonCarriesTheDateTakenPositionAndCamera() throws {
        let photo = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/metadata/jpeg-full.jpg").path
        let cat = Fixture.sourcePhotos.appending(path: "cat-chelsea.jpg").path
        let result = try Tool.run(["classify", photo, cat, "--format", "json", "--top", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try jsonArray(result.stdout)
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0["path"] as? String ?? "", $0) })
        let taken = try #require(byPath[photo])
        #expect(taken["taken"] as? String == "2023-06-01T14:30:05.120+02:00")
        let gps = try #require(taken["gps"] as? [String: Double])
        #expect(abs((gps["latitude"] ?? 0) - 48.8584) < 1e-5 && abs((gps["longitude"] ?? 0) - 2.2945) < 1e-5)
        #expect(gps["altitude"] == 35)
        #expect(taken["camera"] as? [String: String] == ["make": "Apple", "model": "iPhone 13", "lens": "iPhone 13 back dual wide camera 5.1mm f/1.6"])
        let plain = try #require(byPath[cat])
        #expect(plain["taken"] == nil && plain["gps"] == nil && plain["camera"] == nil)
    }

    @Test func jsonLinesIsOneObjectPerFile() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let result = try Tool.run(["classify", fixture.photos.path, "--format", "jsonl", "--top", "1"])
        #expect(result.status == 2)
        #expect(result.lines.count == 10)
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["path"] is String)
            #expect(object["observations"] != nil || object["error"] != nil)
        }
    }

    @Test func csvQuotesFieldsAndNumbersRanks() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let result = try Tool.run(["classify", fixture.photos.path, "--format", "csv", "--top", "3"])
        #expect(result.status == 2)
        let rows = CSV.parse(result.stdout)
        #expect(rows.first == ["path", "rank", "identifier", "display_name", "confidence", "wordnet_id", "error_stage", "error_reason"])
        #expect(rows.dropFirst().allSatisfy { $0.count == 8 })
        // The raw line quotes the comma and doubles the quotes.
        let quotedPath = fixture.photos.appending(path: "bad, \"quoted\".jpg").path
        #expect(result.lines.contains { $0.hasPrefix("\"" + quotedPath.replacingOccurrences(of: "\"", with: "\"\"") + "\",,,,,,decode,") })
        let quoted = try #require(rows.first { $0[0] == quotedPath })
        #expect(quoted[6] == "decode")
        let cat = rows.filter { $0[0] == fixture.cat }
        #expect(cat.map { $0[1] } == ["1", "2", "3"])
        #expect(cat.allSatisfy { Double($0[4]) != nil && $0[6].isEmpty })
        let coffee = rows.filter { $0[0] == fixture.coffee }
        #expect(coffee.count == 3, "the unicode name survives")
    }

    @Test func tableForOneGoodFileExitsZero() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let result = try Tool.run(["classify", fixture.cat, "--top", "3"])
        #expect(result.status == 0)
        #expect(result.lines.count == 4)
        #expect(result.lines.first == "\(fixture.cat)  385x256")
        #expect(result.lines.dropFirst().allSatisfy { $0.hasPrefix("  0.") })
        #expect(result.stderr.isEmpty)
    }

    @Test func minConfidenceAndCalibratedFilterDropLabels() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let strict = try Tool.run(["classify", fixture.cat, "--format", "jsonl", "--top", "0", "--min-confidence", "0.5"])
        #expect(strict.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [String: Any])
        let confidences = (object["observations"] as? [[String: Any]] ?? []).compactMap { $0["confidence"] as? Double }
        #expect(!confidences.isEmpty)
        #expect(confidences.allSatisfy { $0 >= 0.5 })

        let everything = try Tool.run(["classify", fixture.cat, "--format", "jsonl", "--top", "0"])
        let precise = try Tool.run(["classify", fixture.cat, "--format", "jsonl", "--top", "0", "--filter", "high-precision"])
        let all = ((try JSONSerialization.jsonObject(with: Data(everything.stdout.utf8)) as? [String: Any])?["observations"] as? [Any])?.count ?? 0
        let kept = ((try JSONSerialization.jsonObject(with: Data(precise.stdout.utf8)) as? [String: Any])?["observations"] as? [[String: Any]]) ?? []
        #expect(kept.count < all)
        #expect(kept.contains { $0["identifier"] as? String == "cat" }, "a confident cat passes the high-precision filter")
    }

    @Test func missingFileIsAFailedFileNotACrash() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let missing = fixture.photos.appending(path: "missing.jpg").path
        let result = try Tool.run(["classify", fixture.cat, missing, "--format", "jsonl", "--top", "1"])
        #expect(result.status == 2)
        #expect(result.lines.count == 2)
        #expect(result.lines[1].contains("\"stage\":\"read\""))
    }

    @Test func usageErrorsExitOne() throws {
        for arguments in [["--bogus"], ["classify"], ["classify", "x.jpg", "--format", "xml"], ["classify", "x.jpg", "--jobs", "0"],
                          ["search", "cat", "--limit", "0"], ["search", "--untagged", "--failed"], ["search", "--after", "someday"],
                          ["index", "--jobs", "0", "x"], ["show"], ["labels", "--format", "csv"]] {
            let result = try Tool.run(arguments)
            #expect(result.status == 1, "\(arguments) exits 1")
            #expect(result.stdout.isEmpty, "\(arguments) prints nothing on stdout")
            #expect(result.stderr.contains("Error:") || result.stderr.contains("error:"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func modelLocationCanBeOverridden() throws {
        let fixture = try Fixture.library()
        defer { fixture.remove() }
        let copy = fixture.root.appending(path: "my model")
        try FileManager.default.createSymbolicLink(at: copy, withDestinationURL: Tool.packageRoot.appending(path: "Models/efficientnet-lite0"))
        let viaOption = try Tool.run(["classify", fixture.cat, "--top", "1", "--verbose", "--model", copy.path])
        #expect(viaOption.status == 0)
        #expect(viaOption.stderr.contains("model: \(copy.path)\n"))
        var environment = Tool.environment(dataHome: fixture.dataHome)
        environment["CLASSIFY_MODEL_DIR"] = copy.path
        let viaEnvironment = try Tool.run(["classify", fixture.cat, "--top", "1", "-v"], environment: environment)
        #expect(viaEnvironment.status == 0)
        #expect(viaEnvironment.stderr.contains("model: \(copy.path)\n"))
        #expect(viaEnvironment.stdout == viaOption.stdout)

        environment["CLASSIFY_MODEL_DIR"] = fixture.root.appending(path: "nowhere").path
        let wrong = try Tool.run(["classify", fixture.cat], environment: environment)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("holds no model.json"))
        let wrongOption = try Tool.run(["classify", fixture.cat, "--model", fixture.photos.path])
        #expect(wrongOption.status == 1)
        #expect(wrongOption.stdout.isEmpty)
    }

    @Test func versionPrintsTheLibraryVersion() throws {
        let result = try Tool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    }
}

/// A small RFC 4180 reader for checking the tool's CSV.
enum CSV {
    /// Rows of fields; quoted fields may hold commas, quotes ("") and line breaks.
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, characters = Array(text), index = 0
        while index < characters.count {
            let character = characters[index]
            if quoted {
                if character == "\"" {
                    if index + 1 < characters.count && characters[index + 1] == "\"" { field.append("\""); index += 1 } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(field); field = ""
            } else if character == "\n" {
                row.append(field); rows.append(row); row = []; field = ""
            } else {
                field.append(character)
            }
            index += 1
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        characters = []
        return rows
    }
}
