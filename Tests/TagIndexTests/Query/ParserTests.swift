import Testing
@testable import TagIndex

@Suite struct ParserTests {
    private func expression(_ text: String) throws -> QueryExpression? {
        try Query(parsing: text).expression
    }

    private func syntaxError(_ text: String) -> QuerySyntaxError? {
        do {
            _ = try Query(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func termsAndOperators() throws {
        #expect(try expression("dog") == .term(SearchTerm("dog", offset: 0)))
        #expect(try expression("dog cat") == .and([
            .term(SearchTerm("dog", offset: 0)), .term(SearchTerm("cat", offset: 4)),
        ]))
        #expect(try expression("dog AND cat OR bird") == .or([
            .and([.term(SearchTerm("dog", offset: 0)), .term(SearchTerm("cat", offset: 8))]),
            .term(SearchTerm("bird", offset: 15)),
        ]))
        #expect(try expression("-dog NOT (cat)") == .and([
            .not(.term(SearchTerm("dog", offset: 1))), .not(.term(SearchTerm("cat", offset: 10))),
        ]))
        #expect(try expression("retriev*:0.4") == .term(SearchTerm("retriev", kind: .prefix, minimumConfidence: 0.4, offset: 0)))
        #expect(try expression("\"golden retriever\":0.6") == .term(
            SearchTerm("golden retriever", kind: .phrase, minimumConfidence: 0.6, offset: 0)))
        #expect(try expression("dog:1") == .term(SearchTerm("dog", minimumConfidence: 1, offset: 0)))
        #expect(try expression("t-shirt") == .term(SearchTerm("t-shirt", offset: 0)))
        // Lowercase operators are words (label names).
        #expect(try expression("or") == .term(SearchTerm("or", offset: 0)))
    }

    @Test func filtersFillTheQuery() throws {
        let query = try Query(parsing:
            "dog under:\"/my photos/\" type:JPG,.png after:2023-01-02 before:2024-01-01T00:00:00Z "
            + "minwidth:100 minheight:200 minsize:1.5KB maxsize:2M min:0.3 untagged")
        #expect(query.expression == .term(SearchTerm("dog", offset: 0)))
        #expect(query.filters.folders == ["/my photos"])
        #expect(query.filters.fileTypes == ["jpg", "png"])
        // after: and before: are the date taken, in the photo's own local time (a zone is ignored).
        #expect(query.filters.taken == LocalTimeRange(lower: "2023-01-02", upper: "2024-01-01T00:00:00"))
        #expect(query.filters.minimumWidth == 100)
        #expect(query.filters.minimumHeight == 200)
        #expect(query.filters.minimumBytes == 1536)
        #expect(query.filters.maximumBytes == 2_097_152)
        #expect(query.minimumConfidence == 0.3)
        #expect(query.filters.status == .untagged)
        #expect(try Query(parsing: "failed").filters.status == .failed)
        #expect(try Query(parsing: "dog filter:high-precision").calibration == .highPrecision)
        #expect(try Query(parsing: "dog filter:HIGH-RECALL").calibration == .highRecall)
        #expect(try Query(parsing: "dog precision:0.95").calibration == .minimumRecall(0, forPrecision: 0.95))
        #expect(try Query(parsing: "dog recall:0.7").calibration == .minimumPrecision(0, forRecall: 0.7))
        #expect(try Query(parsing: "").expression == nil)
        #expect(try Query(parsing: "   ").expression == nil)
    }

    @Test func errorsPointAtThePosition() {
        let cases: [(String, String, Int)] = [
            ("dog AND (cat", "unclosed '(' (opened at offset 8): expected ')'", 12),
            ("dog)", "unexpected ')'", 3),
            ("()", "empty parentheses", 0),
            ("AND dog", "expected a term before 'AND'", 0),
            ("dog OR", "expected a term after 'OR'", 6),
            ("dog AND", "expected a term after 'AND'", 7),
            ("dog -", "expected a term after '-'", 4),
            ("\"golden", "unterminated quote", 0),
            ("dog:1.5", "a confidence must be between 0 and 1", 4),
            ("dog:0.5x", "expected a confidence between 0 and 1 after ':'", 4),
            ("(dog under:/a)", "the filter 'under:' applies to the whole query and cannot be inside parentheses", 5),
            ("dog OR under:/a", "the filter 'under:' applies to the whole query and cannot be inside OR", 7),
            ("-under:/a", "the filter 'under:' cannot be negated", 1),
            ("after:someday", "expected a date like 2023, 2023-01 or 2023-01-31 (or 2023-01-31T12:00), or last-month, after 'after:'", 0),
            ("minsize:lots", "expected a size like 500KB or 2MB after 'minsize:'", 0),
            ("dog\u{0}cat", "NUL characters are not allowed in a query", 3),
            ("\u{0}", "NUL characters are not allowed in a query", 0),
            ("dog\u{7}", "control characters are not allowed in a query", 3),
            ("*", "'*' needs a prefix before it", 0),
            ("dog filter:fast", "expected 'filter:high-precision' or 'filter:high-recall'", 4),
            ("dog recall:2", "expected a value between 0 and 1 after 'recall:'", 4),
        ]
        for (text, message, offset) in cases {
            let error = syntaxError(text)
            #expect(error?.message == message, "\(text)")
            #expect(error?.offset == offset, "\(text)")
        }
    }

    @Test func caretLinePointsAtTheOffset() throws {
        let error = try #require(syntaxError("dog AND (cat"))
        #expect(error.description == """
            unclosed '(' (opened at offset 8): expected ')' at offset 12
              dog AND (cat
                          ^
            """)
        let nul = try #require(syntaxError("ab\u{0}"))
        #expect(nul.caretLines == "  ab·\n    ^")
    }

    @Test func hugeQueriesGiveAClearError() throws {
        let manyTerms = String(repeating: "dog ", count: 2500)
        #expect(manyTerms.count == 10_000)
        let tooMany = try #require(syntaxError(manyTerms))
        #expect(tooMany.message == "too many terms (at most 100)")
        #expect(tooMany.offset == 400)
        let deep = String(repeating: "(", count: 5000) + "dog" + String(repeating: ")", count: 5000)
        #expect(syntaxError(deep)?.message == "parentheses are nested too deeply (at most 64)")
        let negations = String(repeating: "-", count: 9_999) + "x"
        #expect(syntaxError(negations)?.message == "the query is nested too deeply")
        let longWord = String(repeating: "a", count: 10_000)
        #expect(try Query(parsing: longWord).expression == .term(SearchTerm(longWord, offset: 0)))
        let longError = try #require(syntaxError(String(repeating: "a ", count: 5_000) + ")"))
        #expect(longError.message == "unexpected ')'")
        #expect(longError.caretLines.contains("…"))
    }
}
