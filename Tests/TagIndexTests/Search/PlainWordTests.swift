import Foundation
import Testing
@testable import TagIndex

/// Plain words in a search box (``PlainWordReading``) on both backends: years, dates and months
/// become the date taken, place names the place, color names the color ranked by, small words are
/// skipped, and a word that means two things keeps one and says how to ask for the other.
@Suite struct PlainWordTests {
    /// Place names as the places file would answer them: Paris, Italy, Jersey (an island, and a
    /// label here), China (a country, and free text in a label's name), Kitchen (a hamlet, and free
    /// text in a label's name), New York (two words).
    struct Names: PlaceNameResolver {
        static let words: [String: PlaceWord] = [
            "paris": PlaceWord(matches: [.places([2_988_507])], name: "Paris, France", isProminent: true),
            "italy": PlaceWord(matches: [.country("IT")], name: "Italy", isProminent: true),
            "jersey": PlaceWord(matches: [.country("JE")], name: "Jersey", isProminent: true),
            "china": PlaceWord(matches: [.country("CN")], name: "China", isProminent: true),
            "kitchen": PlaceWord(matches: [.places([1])], name: "Kitchen, United States", isProminent: false),
            "dgo": PlaceWord(matches: [.places([2])], name: "Dgo, Nowhere", isProminent: false),
            "zorra": PlaceWord(matches: [.places([3])], name: "Zorra, Nowhere", isProminent: false),
            "new york": PlaceWord(matches: [.region(countryCode: "US", admin1Code: "NY")], name: "New York, United States", isProminent: true),
        ]
        func matches(forPlaceNamed name: String) -> [PlaceMatch] { Self.words[name.lowercased()]?.matches ?? [] }
        func countryCode(named name: String) -> String? { nil }
        func place(forWord word: String) -> PlaceWord? { Self.words[word] }
    }

    static let model = ModelStamp(name: "m", version: "1")
    static let red = IndexedColor(hex: "D32F2F")!

    /// Five photos: two dogs (Paris in June 2019, red; Rome in July 2020, white), an orange
    /// (December 2019, orange), a jersey that states no date (its file time is in March 2021) and
    /// a china cabinet in New York.
    static func make(_ backend: Backend) async throws -> BackendIndex {
        let directory = try TemporaryDirectory()
        let index = try SQLiteIndex(url: directory.databaseURL)
        try index.replaceTaxonomy([
            LabelDefinition(identifier: "dog", displayName: "Dog"),
            LabelDefinition(identifier: "orange", displayName: "Orange"),
            LabelDefinition(identifier: "jersey", displayName: "Jersey", synonyms: ["T-shirt"]),
            LabelDefinition(identifier: "china_cabinet", displayName: "China Cabinet"),
            LabelDefinition(identifier: "kitchen_table", displayName: "Kitchen Table"),
            LabelDefinition(identifier: "seashore", displayName: "Seashore"),
        ], model: model, vocabulary: [
            VocabularyWord(word: "beach", labels: ["seashore"], reason: "a beach is a seashore"),
            VocabularyWord(word: "red", unsupported: "Colors are searched separately: --color D32F2F.", reason: "colors"),
        ])
        func photo(
            _ name: String, _ label: String, _ colors: [IndexedColor], modified: String, taken: String? = nil, place: PlaceReference? = nil
        ) -> IndexEntry {
            .classified(ImageClassification(
                path: "/p/\(name)", size: 1, modificationTime: ISO8601DateFormatter().date(from: modified)!,
                contentHash: name, width: 10, height: 10, model: model,
                observations: [LabelConfidence(identifier: label, confidence: 0.9)], dominantColors: colors,
                metadata: IndexedMetadata(taken: taken.map { TakenDate(local: $0, source: .exif) }, place: place)))
        }
        let white = IndexedColor(hex: "F5F5F5")!, orange = IndexedColor(hex: "F57C00")!
        try index.write(batch: [
            photo("dog-paris.jpg", "dog", [red], modified: "2024-01-01T12:00:00Z", taken: "2019-06-14T10:00:00",
                  place: PlaceReference(id: 2_988_507, countryCode: "FR", admin1Code: "11")),
            photo("dog-rome.jpg", "dog", [white], modified: "2024-01-01T12:00:00Z", taken: "2020-07-01T09:00:00",
                  place: PlaceReference(id: 3_169_070, countryCode: "IT", admin1Code: "07")),
            photo("orange.jpg", "orange", [orange], modified: "2024-01-01T12:00:00Z", taken: "2019-12-24T18:00:00"),
            photo("jersey.jpg", "jersey", [white], modified: "2021-03-15T12:00:00Z"),
            photo("cabinet.jpg", "china_cabinet", [white], modified: "2024-01-01T12:00:00Z", taken: "2022-05-01T12:00:00",
                  place: PlaceReference(id: 5_128_581, countryCode: "US", admin1Code: "NY")),
        ])
        return try await BackendIndex.make(backend, copying: index, in: directory)
    }

    static func query(_ text: String) throws -> Query { try Query(parsing: text, places: Names()) }

    static func names(_ page: SearchPage) -> [String] { page.hits.map { URL(fileURLWithPath: $0.path).lastPathComponent } }

    @Test(arguments: Backend.allCases) func yearsMonthsAndPlacesBecomeFilters(backend: Backend) async throws {
        let index = try await Self.make(backend)
        func found(_ text: String) async throws -> [String] { Self.names(try await index.search(try Self.query(text))) }
        #expect(try await found("dog paris 2019") == ["dog-paris.jpg"])
        #expect(try await found("dog in italy") == ["dog-rome.jpg"])
        #expect(try await found("dog 2019-06") == ["dog-paris.jpg"])
        #expect(try await found("dog 2019-06-15").isEmpty)
        #expect(try await found("June") == ["dog-paris.jpg"])
        #expect(try await found("december 2019") == ["orange.jpg"])
        #expect(try await found("june july") == ["dog-rome.jpg", "dog-paris.jpg"])
        // The jersey states no date: its file time's month stands in.
        #expect(try await found("march") == ["jersey.jpg"])
        #expect(try await found("new york") == ["cabinet.jpg"])
        #expect(try await found("pictures of the dog at the beach").isEmpty)
        #expect(try await found("pictures of my dog").count == 2)
        // Nothing left to score: newest taken first, and the page says so.
        #expect(try await found("2019") == ["orange.jpg", "dog-paris.jpg"])
        #expect(try await index.search(try Self.query("2019")).order == .taken)
        #expect(try await index.search(try Self.query("dog 2019")).order == .confidence)
    }

    @Test(arguments: Backend.allCases) func colorWordsRankByTheColor(backend: Backend) async throws {
        let index = try await Self.make(backend)
        let plain = try await index.search(try Self.query("red dog"))
        #expect(Self.names(plain) == ["dog-paris.jpg"])
        #expect(plain == (try await index.search(color: Self.red, query: try Self.query("dog"))))
        #expect(Self.names(try await index.search(try Self.query("color:orange"))) == ["orange.jpg"])
        #expect(try Self.query("color:#d32f2f").color == Self.red)
    }

    @Test(arguments: Backend.allCases) func aWordThatMeansTwoThingsSaysHowToAskForTheOther(backend: Backend) async throws {
        let index = try await Self.make(backend)
        // A label's name wins over a color and a place, and the note says how to ask for them.
        let orange = try await index.search(try Self.query("orange"))
        #expect(Self.names(orange) == ["orange.jpg"])
        #expect(orange.notes == ["'orange' is searched as a label; to rank by the color, write color:orange."])
        let jersey = try await index.search(try Self.query("jersey"))
        #expect(Self.names(jersey) == ["jersey.jpg"])
        #expect(jersey.notes == ["'jersey' is searched as a label; for photos taken in Jersey, write place:jersey."])
        // A prominent place wins over free text in label names; a hamlet does not.
        let china = try await index.search(try Self.query("china"))
        #expect(china.hits.isEmpty)
        #expect(china.notes == ["'china' is searched as a place (China); for the labels it names, write \"china\"."])
        #expect(Self.names(try await index.search(try Self.query("\"china\""))) == ["cabinet.jpg"])
        let kitchen = try await index.search(try Self.query("kitchen"))
        #expect(kitchen.hits.isEmpty)
        #expect(kitchen.notes == ["'kitchen' is searched as a label; for photos taken in Kitchen, United States, write place:kitchen."])
        // Quoted words and words inside OR are labels only.
        #expect(try await index.search(try Self.query("\"jersey\"")).notes.isEmpty)
        await #expect(throws: TagIndexError.self) { try await index.search(try Self.query("dog OR paris")) }
    }

    @Test(arguments: Backend.allCases) func wordsThatCannotBeReadAreClearErrors(backend: Backend) async throws {
        let index = try await Self.make(backend)
        for (text, message) in [
            ("the of", "has only words a search skips"),
            ("2019 2020", "for a span write taken:2019..2020"),
            ("red white dog", "a search ranks by one color"),
        ] {
            do {
                _ = try await index.search(try Self.query(text))
                Issue.record("'\(text)' searched")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
        // A word that is nothing at all is still an unknown label with suggestions.
        await #expect(throws: TagIndexError.self) { try await index.search(try Self.query("dgi 2019")) }
        // A typo that is a hamlet's name searches the hamlet and says which labels it is close to.
        #expect(try await index.search(try Self.query("dgo")).notes == ["'dgo' is searched as a place (Dgo, Nowhere); for a label, did you mean 'dog'?"])
        // Any small town is named in a note (a first name can be one); a well-known place is not.
        #expect(try await index.search(try Self.query("zorra")).notes == ["'zorra' is searched as a place (Zorra, Nowhere)."])
        #expect(try await index.search(try Self.query("paris")).notes.isEmpty)
    }

    @Test(arguments: Backend.allCases) func daysNamedFromTodayAreTheDateTaken(backend: Backend) async throws {
        let index = try await Self.make(backend)
        // A Friday: this week runs from Monday 2020-06-29, last year is 2019.
        func found(_ text: String) async throws -> [String] {
            Self.names(try await index.search(try Query(parsing: text, places: Names(), today: "2020-07-03")))
        }
        #expect(try await found("last year") == ["orange.jpg", "dog-paris.jpg"])
        #expect(try await found("dog last year") == ["dog-paris.jpg"])
        #expect(try await found("june last year") == ["dog-paris.jpg"])
        #expect(try await found("this week") == ["dog-rome.jpg"])
        #expect(try await found("dog this month") == ["dog-rome.jpg"])
        for empty in ["Last Month", "yesterday", "today"] { #expect(try await found(empty).isEmpty, "\(empty)") }
        #expect(try await found("taken:last-year") == ["orange.jpg", "dog-paris.jpg"])
        #expect(try await found("before:this-year") == ["orange.jpg", "dog-paris.jpg"])
        #expect(Set(try await found("after:last-week")) == ["dog-rome.jpg", "jersey.jpg", "cabinet.jpg"])
        #expect(try await found("2019 last year") == ["orange.jpg", "dog-paris.jpg"])
        // modified: is the file's time: four files were modified on Monday 2024-01-01.
        let week = try await index.search(try Query(parsing: "modified:this-week", places: Names(), today: "2024-01-05"))
        #expect(Set(Self.names(week)) == ["dog-paris.jpg", "dog-rome.jpg", "orange.jpg", "cabinet.jpg"])
        do {
            _ = try await found("2020 last year")
            Issue.record("two dates searched")
        } catch {
            #expect("\(error)".contains("a search names one year or date ('2020' and 'last year')") && !"\(error)".contains("span"), "\(error)")
        }
        // Alone, 'last' is not a date.
        await #expect(throws: TagIndexError.self) { try await found("last") }
    }

    @Test func relativeDaysCountFromToday() {
        func span(_ name: String, _ today: String) -> String? {
            RelativeDays.range(name, today: today).map { "\($0.lower ?? "")..\($0.upper ?? "")" }
        }
        // Weeks start on Monday: a Sunday is the end of its week, a Monday the start.
        #expect(span("this week", "2026-11-29") == "2026-11-23..2026-11-30")
        #expect(span("last week", "2026-11-29") == "2026-11-16..2026-11-23")
        #expect(span("this-week", "2026-11-30") == "2026-11-30..2026-12-07")
        #expect(span("last month", "2026-01-15") == "2025-12-01..2026-01-01")
        #expect(span("this month", "2026-12-31") == "2026-12-01..2027-01-01")
        #expect(span("yesterday", "2024-03-01") == "2024-02-29..2024-03-01")
        #expect(span("today", "2024-02-29") == "2024-02-29..2024-03-01")
        #expect(span("LAST_YEAR", "2026-06-01") == "2025-01-01..2026-01-01")
        #expect(span("this year", "2026-06-01") == "2026-01-01..2027-01-01")
        #expect(span("next year", "2026-06-01") == nil && span("last", "2026-06-01") == nil)
        #expect(span("today", "2026-02-30") == nil && span("today", "someday") == nil)
        // Days before 1970 count as well; a year before the first has no span.
        #expect(span("this week", "1969-12-31") == "1969-12-29..1970-01-05")
        #expect(span("last year", "0001-06-01") == nil && span("today", "2026-11-3T") == nil)
        // Today is the calendar day where the computer is.
        let instant = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01T00:00:00Z
        #expect(RelativeDays.today(at: instant, in: TimeZone(identifier: "UTC")!) == "2025-12-01")
        #expect(RelativeDays.today(at: instant, in: TimeZone(identifier: "America/New_York")!) == "2025-11-30")
    }

    @Test func theStaticWordsAreRead() {
        #expect(PlainWords.year("2019") == 2019)
        #expect(PlainWords.year("1492") == nil && PlainWords.year("20190") == nil && PlainWords.year("２０１９") == nil)
        #expect(PlainWords.dates("2019-06") == LocalTimeRange(lower: "2019-06-01", upper: "2019-07-01"))
        #expect(PlainWords.dates("2019-13") == nil && PlainWords.dates("2019-6") == nil)
        #expect(PlainWords.month("MAY") == 5 && PlainWords.month("mai") == nil)
        #expect(PlainWords.color("Grey") == PlainWords.color("gray"))
        #expect(PlainWords.color("#012acf")?.hex == "012ACF" && PlainWords.color("redd") == nil)
    }

    @Test func onlyTheTopLevelsPlainWordsAreLookedUpAsPlaces() throws {
        #expect(try Self.query("dog new york paris").placeWords.keys.sorted() == ["new york", "paris"])
        #expect(try Self.query("dog OR paris").placeWords.isEmpty)
        #expect(try Self.query("\"paris\" dog:0.5").placeWords.isEmpty)
        #expect(try Query(parsing: "paris", places: nil).placeWords.isEmpty)
    }
}
