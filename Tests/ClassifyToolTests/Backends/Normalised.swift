import Foundation

/// What the behaviour suite takes out of the tool's output before comparing two indexes, and
/// nothing else: values that differ between two databases by nature, never by behaviour.
///
/// - the database's name (`stats` prints it; `index` prints it in its `list all` hint): one is a
///   file, the other a URL;
/// - the database's size in bytes (`stats`): SQLite pages and PostgreSQL relations differ;
/// - the run's duration (`index`: `done in 0.4 s`) and its grouping's (`people: ... (0.1 s)`);
/// - when a row was indexed (`show --format json` and `export --format jsonl`: `indexed`) and
///   when a correction was made (`tag list --format json`: `date`);
/// - the order of search hits of equal score (`search --format json`, sorted by confidence): it
///   is that of the image ids, which each database gives its rows in the order its writers
///   commit them, and two or more workers classify at once, so it is not even the same from one
///   SQLite run to the next. Hits of equal score are compared as a set (sorted by path).
///
/// The last two only when the indexes were built by separate runs: a copy keeps the ids and the
/// times, and is compared with its original with them kept.
///
/// Usage: `let text = Normalised.json(result.stdout, dropping: ["indexed"])`
enum Normalised {
    /// The keys that hold the time a row was written.
    static let writeTimes: Set<String> = ["indexed", "date"]

    /// A `search --format json` answer with the hits of each run of equal scores sorted by path.
    static func searchTies(_ text: String) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let hits = object["results"] as? [[String: Any]]
        else { return text }
        var sorted: [[String: Any]] = []
        var run: [[String: Any]] = []
        func flush() {
            sorted += run.sorted { ($0["path"] as? String ?? "") < ($1["path"] as? String ?? "") }
            run = []
        }
        for hit in hits {
            if let last = run.last, (last["score"] as? Double) != (hit["score"] as? Double) { flush() }
            run.append(hit)
        }
        flush()
        object["results"] = sorted
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return text }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `text` (one JSON value) with `keys` removed from every object in it, printed with sorted keys;
    /// text that is not JSON comes back unchanged, so the comparison still shows it.
    static func json(_ text: String, dropping keys: Set<String>) -> String {
        guard !keys.isEmpty, let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: removing(keys, from: value), options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return text }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// JSON Lines with `keys` removed from each line's object.
    static func jsonLines(_ text: String, dropping keys: Set<String>) -> String {
        text.split(separator: "\n").map { json(String($0), dropping: keys) }.joined()
    }

    private static func removing(_ keys: Set<String>, from value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { !keys.contains($0.key) }.mapValues { removing(keys, from: $0) }
        }
        if let array = value as? [Any] { return array.map { removing(keys, from: $0) } }
        return value
    }

    /// An `index` run's output without its durations, and with the database of its `list all`
    /// hint named `DB` (PostgreSQL's is the URL as the tool describes it, with its `sslmode`).
    static func indexSummary(_ text: String) -> String {
        text.replacing(/done in \d+\.\d s:/, with: "done in T s:").replacing(/waiting for a person \(\d+\.\d s\)/, with: "waiting for a person (T s)")
            .replacing(#/--db .*/#, with: "--db DB")
    }

    /// `stats --json` without the database's name and size.
    static func stats(_ text: String) -> String {
        json(text, dropping: ["database", "databaseBytes"])
    }

    /// The counts of an `index` summary line (`done in 0.4 s: 3 new, 0 updated, ...`), by word:
    /// `["new": 3, "updated": 0, ...]`; empty when the output has no summary.
    static func counts(ofIndexSummary text: String) -> [String: Int] {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("done in ") }),
              let colon = line.firstIndex(of: ":")
        else { return [:] }
        var counts: [String: Int] = [:]
        for part in line[line.index(after: colon)...].split(separator: ",") {
            let words = part.split(separator: " ")
            if words.count == 2, let count = Int(words[0]) { counts[String(words[1])] = count }
        }
        return counts
    }
}
