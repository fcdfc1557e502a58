import Foundation
import Testing

extension Reliability {
    /// Malformed and hostile queries and option values through `classify-tool search` (and a few
    /// other options): a clear error or a correct answer, never a crash, never a change to the index.
    ///
    /// NUL bytes cannot reach a command line (arguments are C strings); the library tests cover
    /// them (TagIndexTests/HostileQueryTests).
    @Suite struct Queries {
        let scratch: ReliabilityScratch
        let database: URL
        let photos: URL

        init() throws {
            scratch = try ReliabilityScratch("queries")
            photos = try scratch.folder("photos")
            for number in 0..<3 { try ReliabilityFixtures.photoCopy(number, to: photos.appending(path: "p\(number).jpg")) }
            database = try ReliabilityFixtures.freshDatabase(in: scratch)
        }

        func search(_ arguments: [String]) throws -> ReliabilityProcess.Outcome {
            try ReliabilityProcess.run(["search"] + arguments + ["--db", database.path], scratch: scratch.url, timeout: 120)
        }

        @Test(.timeLimit(.minutes(20)))
        func hostileQueriesAnswerOrExplainAndChangeNothing() throws {
            let indexed = try ReliabilityProcess.run(["index", photos.path, "--db", database.path], scratch: scratch.url)
            try #require(indexed.exited(0), "\(indexed)")
            let rows = try ReliabilityFixtures.images(database)
            let labels = try ReliabilityFixtures.labels(database)
            let all = Set(rows.keys)

            // Exact answers and messages.
            let exact: [([String], Int32, String)] = [
                (["(cat"], 1, "error: unclosed '(' (opened at offset 0): expected ')' (at character 5)\n  (cat\n      ^\n"),
                (["cat)"], 1, "error: unexpected ')' (at character 4)\n  cat)\n     ^\n"),
                (["\""], 1, "error: unterminated quote (at character 1)\n  \"\n  ^\n"),
                (["AND"], 1, "error: expected a term before 'AND' (at character 1)\n  AND\n  ^\n"),
                (["minsize:1e14GB"], 1, "error: expected a size like 500KB or 2MB after 'minsize:' (at character 1)\n  minsize:1e14GB\n  ^\n"),
                ([String(repeating: "(", count: 10_000)], 1, "error: parentheses are nested too deeply (at most 64) (at character 65)\n"),
                ([String(repeating: "dog OR ", count: 1_428) + "dog"], 1, "error: too many terms (at most 100) (at character 701)\n"),
            ]
            for (query, status, stderr) in exact {
                let outcome = try search(query)
                #expect(outcome.exited(status), "\(query[0].prefix(30)): \(outcome)")
                #expect(outcome.stderr.hasPrefix(stderr), "\(query[0].prefix(30)): \(outcome.stderr.prefix(300))")
                #expect(outcome.stdout.isEmpty)
            }

            // Everything else: results (exit 0) or one "error:" message (exit 1), never a crash.
            let hostile: [[String]] = [
                [], [""], ["   "], ["'"], ["dog'; DROP TABLE images; --"], ["\"dog'; DROP TABLE images; --\""], ["' OR '1'='1"],
                ["%"], ["_"], ["*"], ["NEAR(cat dog)"], ["cat", "OR", "1=1"], ["cat:*"], ["--", "-cat"], ["NOT", "NOT", "cat"],
                [String(repeating: "a", count: 10_000)], [String(repeating: "\"", count: 10_000)], [String(repeating: "x", count: 9_999) + "*"],
                ["under:" + String(repeating: "/very-long-folder-name", count: 450), "cat"], ["type:" + String(repeating: "jpg,", count: 2_500)],
                ["before:99999-01-01"], ["after:0000-01-01"], ["min:1e-400"], ["minwidth:99999999999999999999999"],
                ["🐈"], ["猫"], ["cat\u{202E}"], ["\u{FEFF}cat"],
            ]
            for query in hostile {
                let outcome = try search(query)
                let answered = outcome.exited(0) && Set(outcome.lines).isSubset(of: all)
                let explained = outcome.exited(1) && outcome.stderr.hasPrefix("error: ") && outcome.stdout.isEmpty
                #expect(answered || explained, "\(query.joined(separator: " ").prefix(40)): \(outcome)")
            }
            // A leading "-term" is read as an option unless it follows "--": a usage error, no crash.
            let dash = try search(["-cat"])
            #expect(!dash.signalled && !dash.timedOut && dash.status != 0 && dash.stdout.isEmpty, "\(dash)")
            #expect(dash.stderr.lowercased().contains("error"), "\(dash)")

            // An empty query lists every classified image.
            #expect(Set(try search([]).lines) == all)

            // Option values that used to trap: a clear message, no signal.
            for (arguments, message) in [
                (["--min-size", "1e30GB"], "--min-size takes a size like 500KB, 2MB or 1GB, not '1e30GB'"),
                (["--max-size", "9e18"], "--max-size takes a size like 500KB, 2MB or 1GB, not '9e18'"),
                (["--page", "99999999999999"], "pages are numbered from 1; got 99999999999999"),
            ] {
                let outcome = try search(["cat"] + arguments)
                #expect(!outcome.signalled && !outcome.timedOut && outcome.status != 0, "\(arguments): \(outcome)")
                #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
            }

            // Nothing above touched the index.
            #expect(try ReliabilityFixtures.images(database) == rows)
            #expect(try ReliabilityFixtures.labels(database) == labels)
            #expect(try ReliabilityFixtures.integrity(database) == "ok")
        }

        @Test(.timeLimit(.minutes(20)))
        func absurdJobCountsAreClampedNotFatal() throws {
            let classify = try ReliabilityProcess.run(
                ["classify", photos.appending(path: "p0.jpg").path, "--jobs", "9223372036854775807", "--format", "jsonl"], scratch: scratch.url)
            #expect(classify.exited(0), "\(classify)")
            #expect(classify.lines.count == 1)
            let index = try ReliabilityProcess.run(["index", photos.path, "--db", database.path, "--jobs", "9223372036854775807"], scratch: scratch.url)
            #expect(index.exited(0), "\(index)")
            #expect(index.lines.first?.contains(" 3 new,") == true, "\(index)")
        }
    }
}
