import ClassifyTestSupport
import Foundation
import Testing
@testable import TagIndex

/// Queries a user (or a script) can type by mistake or on purpose: each gives a clear syntax
/// error, a clear index error or a correct answer; none crashes, hangs or touches the data. On
/// both backends (``BackendIndex``): the same outcomes from SQLite's and PostgreSQL's SQL.
@Suite struct HostileQueryTests {
    /// What a query did: the paths it found, or the error message it gave.
    enum Outcome: Equatable, CustomStringConvertible {
        case paths([String])
        case syntax(String)
        case index(String)

        /// Long messages (they quote the query) are cut to keep failures readable.
        var description: String {
            switch self {
            case .paths(let paths): "paths \(paths)"
            case .syntax(let message): "syntax error: \(message.prefix(200))"
            case .index(let message): "index error: \(message.prefix(200))"
            }
        }
    }

    static func outcome(_ text: String, _ fixture: BackendIndex) async -> Outcome {
        do {
            return .paths(try await fixture.paths(text))
        } catch let error as QuerySyntaxError {
            return .syntax(error.message)
        } catch let error as TagIndexError {
            return .index(error.description)
        } catch {
            Issue.record("unexpected error type for \(text.debugDescription): \(error)")
            return .index("\(error)")
        }
    }

    /// Every table still holds what the fixture wrote.
    static func expectUntouched(_ before: IndexStatistics, _ fixture: BackendIndex) async throws {
        #expect(try await fixture.statistics() == before)
        #expect(try await fixture.paths("dog") == ["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])
        #expect(try await fixture.search("failed").hits.map(\.path) == ["/lib/c/broken.jpg"])
    }

    @Test(arguments: Backend.allCases) func sizesTooLargeForSixtyFourBitsAreSyntaxErrors(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        // These used to trap converting the byte count to Int64 (found by reading the parser).
        for text in ["minsize:1e14GB", "maxsize:9e18", "minsize:1e300K", "maxsize:10000000000000000000", "minsize:infB"] {
            let key = text.hasPrefix("min") ? "minsize" : "maxsize"
            #expect(await Self.outcome(text, fixture) == .syntax("expected a size like 500KB or 2MB after '\(key):'"), "\(text)")
        }
        // The largest sizes that still fit are accepted and find nothing too large.
        #expect(await Self.outcome("minsize:1000000GB", fixture) == .paths([]))
        #expect(await Self.outcome("maxsize:1000000GB animal", fixture) == .paths(["golden1.jpg", "poodle1.jpg", "lab1.png", "tabby1.jpg", "flat1.jpg"]))
    }

    @Test(arguments: Backend.allCases) func unbalancedAndEmptyQueriesPointAtTheProblem(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let cases: [(String, Outcome)] = [
            ("(((dog", .syntax("unclosed '(' (opened at offset 2): expected ')'")),
            ("dog)))", .syntax("unexpected ')'")),
            (")(", .syntax("expected a term")),
            ("(", .syntax("expected a term")),
            ("( )", .syntax("empty parentheses")),
            ("\"", .syntax("unterminated quote")),
            ("\"\"", .syntax("empty phrase")),
            ("\"dog", .syntax("unterminated quote")),
            ("dog\"", .syntax("unterminated quote")),
            ("OR", .syntax("expected a term before 'OR'")),
            ("NOT", .syntax("expected a term after 'NOT'")),
            ("-", .syntax("expected a term after '-'")),
            ("dog:", .paths(["golden1.jpg", "poodle1.jpg", "lab1.png", "flat1.jpg"])),
            ("**", .syntax("'*' needs a prefix before it")),
        ]
        for (text, expected) in cases {
            #expect(await Self.outcome(text, fixture) == expected, "\(text.debugDescription)")
        }
        // Empty and blank queries match every classified image.
        #expect(await Self.outcome("", fixture) == Self.outcome("   \t  ", fixture))
        if case .paths(let all) = await Self.outcome("", fixture) { #expect(all.count == 7) } else { Issue.record("empty query failed") }
    }

    @Test(arguments: Backend.allCases) func sqlAndFTSMetacharactersAreOnlyText(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let before = try await fixture.statistics()
        let texts = [
            "'", "''", "';", "' OR '1'='1", "dog' --", "dog; DELETE FROM images", "\"; DROP TABLE labels; --\"",
            "dog%", "%", "_", "dog_", "under:% dog", "under:\"/lib/%\" dog", "type:%", "type:_pg", "type:\\",
            "NEAR(dog cat)", "dog NEAR cat", "^dog", "dog:*", "label_text:dog", "identifier:dog", "{dog}", "dog + cat",
            "rowid", "sqlite_master", "*:*", "a\\", "\\\"", "dog/**/OR/**/1=1", "`dog`", "[dog]", "$1", "?", "?1", ":name", "@x",
            "dog\u{202E}tac", "\u{FEFF}dog", "d\u{301}og", "🐕", "🐕*", "\"🐕 🐈\"", "日本", "dog\u{200B}",
        ]
        for text in texts {
            let result = await Self.outcome(text, fixture)
            if case .paths(let paths) = result {
                // Whatever matched must be real fixture images, never a row count from injected SQL.
                #expect(Set(paths).isSubset(of: Set(FixtureIndex.images.map { URL(fileURLWithPath: $0.0).lastPathComponent })), "\(text.debugDescription)")
            }
        }
        // Metacharacters in filters are literal: no path contains '%' or '_' after a dot.
        #expect(await Self.outcome("under:\"/lib/%\" dog", fixture) == .paths([]))
        #expect(await Self.outcome("type:_pg dog", fixture) == .paths([]))
        #expect(await Self.outcome("type:jp% dog", fixture) == .paths([]))
        try await Self.expectUntouched(before, fixture)
    }

    @Test(arguments: Backend.allCases) func nulAndControlCharactersAreRefusedWherever(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        for text in ["\u{0}", "dog\u{0}", "\u{0}dog", "\"dog\u{0}cat\"", "under:\"/lib\u{0}\" dog", "dog:0.\u{0}5", "(\u{0})", "dog\u{1B}[31m", "\u{7F}"] {
            guard case .syntax(let message) = await Self.outcome(text, fixture) else {
                Issue.record("\(text.debugDescription) was not refused")
                continue
            }
            #expect(message == "NUL characters are not allowed in a query" || message == "control characters are not allowed in a query", "\(text.debugDescription)")
        }
    }

    @Test(arguments: Backend.allCases) func tenThousandCharacterQueriesAnswerOrExplain(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let before = try await fixture.statistics()
        let long = 10_000
        let cases: [(String, Outcome)] = [
            (String(repeating: "a", count: long), .index("unknown label '\(String(repeating: "a", count: long))'")),
            (String(repeating: "a", count: long - 1) + "*", .index("unknown label '\(String(repeating: "a", count: long - 1))'")),
            ("\"" + String(repeating: "dog ", count: (long - 2) / 4) + "\"", .index("unknown label 'dog dog dog")),
            (String(repeating: "\"", count: long), .syntax("empty phrase")),
            (String(repeating: "(", count: long), .syntax("parentheses are nested too deeply (at most 64)")),
            (String(repeating: ")", count: long), .syntax("expected a term")),
            (String(repeating: "-", count: long), .syntax("expected a term after '-'")),
            (String(repeating: "*", count: long), .syntax("'*' needs a prefix before it")),
            (String(repeating: ":", count: long), .index("unknown label ':::")),
            (String(repeating: "dog OR ", count: long / 7) + "dog", .syntax("too many terms (at most 100)")),
            (String(repeating: "NOT ", count: long / 4), .syntax("the query is nested too deeply")),
            ("under:" + String(repeating: "/x", count: long / 2) + " dog", .paths([])),
            // Repeated types are one type (this one used to exceed SQLite's expression depth).
            ("type:" + String(repeating: "jpg,", count: long / 4) + " dog", .paths(["golden1.jpg", "poodle1.jpg", "flat1.jpg"])),
            ("type:" + (0..<2_000).map { "t\($0)" }.joined(separator: ",") + " dog", .syntax("too many file types (at most 100)")),
            ((0..<1_000).map { "under:/d\($0)" }.joined(separator: " ") + " dog", .syntax("too many filters (at most 100)")),
            (String(repeating: "🐕", count: long), .index("unknown label '\(String(repeating: "🐕", count: long))'")),
            (String(repeating: "'", count: long), .index("unknown label '\(String(repeating: "'", count: long))'")),
        ]
        for (text, expected) in cases {
            let result = await Self.outcome(text, fixture)
            switch (result, expected) {
            case (.index(let message), .index(let prefix)):
                // The suggestion list after the message may vary; the message itself may not.
                #expect(message.hasPrefix(prefix), "\(String(text.prefix(20)))…: \(String(message.prefix(120)))")
            default:
                #expect(result == expected, "\(String(text.prefix(20)))…")
            }
        }
        try await Self.expectUntouched(before, fixture)
    }

    @Test(arguments: Backend.allCases) func codeBuiltQueriesWithTooManyFiltersAreRefused(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        var query = Query(.word("dog"))
        query.filters.folders = (0...ImageFilters.maximumFolderOrTypeCount).map { "/lib/\($0)" }
        await #expect(throws: TagIndexError.invalidInput("a search takes at most 100 folders and 100 file types")) {
            try await fixture.search(query)
        }
        query.filters.folders = (0..<ImageFilters.maximumFolderOrTypeCount).map { "/lib/\($0)" }
        query.filters.fileTypes = (0..<ImageFilters.maximumFolderOrTypeCount).map { "t\($0)" }
        #expect(try await fixture.search(query).hits.isEmpty)
        query.filters.fileTypes.append("jpg")
        await #expect(throws: TagIndexError.invalidInput("a search takes at most 100 folders and 100 file types")) {
            try await fixture.search(query)
        }
    }

    /// A seeded soup of the language's own pieces: thousands of odd but plausible queries.
    @Test(arguments: Backend.allCases) func randomQueriesOnlyEverAnswerOrExplain(backend: Backend) async throws {
        let fixture = try await BackendFixture.make(backend)
        let before = try await fixture.statistics()
        let pieces = [
            "dog", "cat", "animal", "retriev*", "\"golden retriever\"", "\"golden", "(", ")", "((", "))", "AND", "OR",
            "NOT", "-", "--", ":", ":0.5", ":2", "*", "\"", "'", ";", "under:/lib", "under:", "type:jpg", "type:",
            "min:0.4", "min:x", "after:2023-01-01", "before:9999-12-31", "minsize:1e99GB", "maxsize:-1", "minwidth:99999999999999999999",
            "failed", "untagged", "is:nothing", "%", "_", "\\", "🐕", "\u{0}", "\u{7}", " ", "  ", "\t", "\n",
            "dog:1e-400", "dog:nan", "dog:inf", "puppy", "kitty", "lab", "NEAR(", "^", "0", "-0.0", "…",
        ]
        var generator = SeededRandom(seed: 20_251_122)
        for _ in 0..<3_000 {
            let count = Int.random(in: 1...12, using: &generator)
            let text = (0..<count).map { _ in pieces.randomElement(using: &generator)! }
                .joined(separator: Bool.random(using: &generator) ? " " : "")
            _ = await Self.outcome(text, fixture)   // outcome() records any error that is neither kind
        }
        try await Self.expectUntouched(before, fixture)
    }
}
