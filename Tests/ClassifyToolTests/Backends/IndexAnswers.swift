import Foundation
import Testing

/// Everything the read commands answer about one index, normalised (see ``Normalised``), by the
/// command that answered: `search --format json` (several queries, facets, `--failed`,
/// `--untagged`, three sort orders, a second page), `search` as paths (with the count and facets on
/// stderr), `show --format json` of every file in the folder and of a file no longer there,
/// `stats --json`, `labels --used` (text and JSON), `labels WORD`, `export --format jsonl`,
/// `tag list --format json` and `duplicates --format json`.
///
/// Usage: `let answers = try IndexAnswers(database: url, photos: folder.photos, files: try folder.files(), exact: false)`
struct IndexAnswers {
    /// Each command's normalised status, stdout and stderr, by its arguments joined with spaces.
    var byCommand: [(command: String, answer: String)] = []

    /// Search queries, with `--format json`; together they match every row the index holds.
    static let searches: [[String]] = [
        [], ["cat"], ["coffee OR rocket"], ["animal -cat"], ["pets"], ["liftoff"], ["grandma"], ["coffee_mug"],
        ["--failed"], ["--untagged"], ["--facets", "8"], ["rocket", "--facets", "5"], ["--sort", "path"],
        ["--sort", "date", "--limit", "2", "--page", "2"], ["--filter", "none", "--facets", "12"], ["--filter", "high-precision"],
        ["--under", "archive"], ["face"], ["faces:1"],
        ["taken:2023"], ["after:2020", "before:2022"], ["taken:2016..2019-12"], ["taken:>=2024-01-01"], ["modified:2024-01-01"],
        ["camera:iphone"], ["camera:\"canon eos\""], ["lens:wide"], ["near:48.85,2.35,10km"], ["near:35,136,200km"],
        ["place:paris"], ["place:new-york"], ["country:japan"], ["country:fr"], ["--sort", "taken"],
        ["paris"], ["new", "york"], ["japan"], ["2021"], ["june"], ["january"], ["july", "2019"], ["cat", "in", "2024"], ["cat", "in", "2023"],
        ["red"], ["cat", "white"], ["color:1976D2"],
    ]

    /// Reads `database` with every command, for the photo folder whose files (absolute paths) are
    /// `files`; `gone` are paths no longer in the folder, for `show` to refuse. `exact` for a copy
    /// compared with its original: nothing is normalised but the database's name and size;
    /// otherwise the times rows and corrections were written are dropped, and search hits of equal
    /// score compared as sets (see ``Normalised``). `model` is the model folder the index was last
    /// built with: `labels` reads names and words from the model, and counts from the index.
    init(database: String, photos: URL, files: [String], gone: [String] = [], model: String? = nil, exact: Bool) throws {
        let writeTimes = exact ? [] : Normalised.writeTimes
        var probes: [(arguments: [String], normalise: (String) -> String)] = []
        for query in Self.searches {
            let sortedByConfidence = !query.contains("--sort")
            probes.append((["search", "--format", "json"] + query, { exact || !sortedByConfidence ? $0 : Normalised.searchTies($0) }))
        }
        // As paths (the count and facets on stderr), in path order: the paths carry no score to
        // tell ties by.
        for query in [["--failed"], ["rocket", "--facets", "3"]] {
            probes.append((["search", "--sort", "path"] + query, { $0 }))
        }
        for file in files + gone {
            probes.append((["show", file, "--format", "json", "--top", "40"], { Normalised.json($0, dropping: writeTimes) }))
        }
        probes.append((["stats", "--json"], Normalised.stats))
        let modelOption = model.map { ["--model", $0] } ?? []
        probes.append((["labels", "--used"] + modelOption, { $0 }))
        probes.append((["labels", "--used", "--format", "json"] + modelOption, { $0 }))
        for word in ["cat", "liftoff", "grandma", "beverage"] {
            probes.append((["labels", word] + modelOption, { $0 }))
        }
        probes.append((["export", "--format", "jsonl"], { Normalised.jsonLines($0, dropping: writeTimes) }))
        probes.append((["export", "--format", "jsonl", "--filter", "none"], { Normalised.jsonLines($0, dropping: writeTimes) }))
        probes.append((["tag", "list", "--format", "json"], { Normalised.json($0, dropping: writeTimes) }))
        probes.append((["duplicates", "--format", "json"], { $0 }))

        let results = Self.runAll(probes.map { $0.arguments + ["--db", database] }, in: photos)
        byCommand = zip(probes, results).map { probe, result in
            (probe.arguments.joined(separator: " "), "status \(result.status)\n\(probe.normalise(result.stdout))--- stderr\n\(result.stderr)")
        }
    }

    /// Runs `commands` in `directory`, a few at once (a short command spends most of its time
    /// starting and connecting), and returns what each printed, in order; a command that could not
    /// be started answers status -1 and says why.
    static func runAll(_ commands: [[String]], in directory: URL, width: Int = 4) -> [Tool.Result] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var results: [Tool.Result?]
            init(_ count: Int) { results = Array(repeating: nil, count: count) }
        }
        let collected = Results(commands.count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = width
        for (position, arguments) in commands.enumerated() {
            queue.addOperation {
                let result: Tool.Result
                do { result = try Tool.run(arguments, in: directory) } catch {
                    result = Tool.Result(status: -1, stdout: "", stderr: "cannot run classify-tool: \(error)")
                }
                collected.lock.withLock { collected.results[position] = result }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        return collected.lock.withLock { collected.results.map { $0 ?? Tool.Result(status: -1, stdout: "", stderr: "not run") } }
    }

    /// The answer to `command` (arguments joined with spaces), if it was asked.
    subscript(command: String) -> String? { byCommand.first { $0.command == command }?.answer }

    /// Expects `other` to have answered every command as this one did, naming the step and the
    /// command of each difference.
    func expectSame(as other: IndexAnswers, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(byCommand.map(\.command) == other.byCommand.map(\.command), "\(step)", sourceLocation: sourceLocation)
        for ((command, answer), (_, otherAnswer)) in zip(byCommand, other.byCommand) {
            #expect(answer == otherAnswer, "\(step): \(command)", sourceLocation: sourceLocation)
        }
    }

    /// The decoded JSON printed by `command` (arguments joined with spaces).
    func json(_ command: String) throws -> Any {
        let answer = try #require(self[command], "\(command) was not asked")
        let printed = try #require(answer.split(separator: "\n", maxSplits: 2).dropFirst().first, "\(command): \(answer)")
        return try JSONSerialization.jsonObject(with: Data(printed.utf8))
    }

    /// The paths `search --format json` found for `query` (the arguments after `--format json`).
    func searchPaths(_ query: [String]) throws -> [String] {
        let object = try #require(try json((["search", "--format", "json"] + query).joined(separator: " ")) as? [String: Any])
        return (object["results"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    /// The label identifiers `show --format json` listed for `path`.
    func shownLabels(_ path: String) throws -> [String] {
        let object = try #require(try json("show \(path) --format json --top 40") as? [String: Any])
        return (object["labels"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
    }
}
