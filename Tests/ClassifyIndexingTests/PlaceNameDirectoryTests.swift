import Classify
import ClassifyIndexing
import Testing
import TagIndex

/// The search language's place names on the committed places file: `place:` takes alternate names
/// and country codes; a plain word takes a town's own name and a country's name only.
@Suite struct PlaceNameDirectoryTests {
    let names = PlaceNameDirectory()

    @Test func plainWordsNameTownsStatesAndCountriesByTheirOwnNames() throws {
        let paris = try #require(names.place(forWord: "paris"))
        #expect(paris.name == "Paris, France" && paris.isProminent)
        #expect(paris.matches.contains(.places([2_988_507])) || paris.matches.contains { if case .places(let ids) = $0 { ids.contains(2_988_507) } else { false } })
        #expect(names.place(forWord: "italy")?.matches == [.country("IT")])
        #expect(names.place(forWord: "new york")?.matches.contains(.region(countryCode: "US", admin1Code: "NY")) == true)
        #expect(names.place(forWord: "california")?.name == "California, United States")
        // Alternate names and codes are for place: and country: only.
        #expect(names.place(forWord: "pets") == nil)
        #expect(!names.matches(forPlaceNamed: "pets").isEmpty, "Pécs has 'Pets' among its alternate names")
        #expect(names.place(forWord: "it") == nil && names.matches(forPlaceNamed: "it").contains(.country("IT")))
        #expect(names.place(forWord: "dgo") == nil)
    }

    @Test func aHamletIsNotProminent() throws {
        let directory = try PlaceDirectory.shared()
        // The smallest town whose own name is one word and no label: found, but not prominent.
        let hamlet = try #require((0..<directory.count).lazy.map(directory.place(at:)).first {
            $0.population > 0 && $0.population < 2_000 && $0.name.allSatisfy(\.isLetter) && directory.places(officiallyNamed: $0.name).count == 1
                && directory.regions(named: $0.name).isEmpty && directory.country(named: $0.name) == nil
        })
        let word = try #require(names.place(forWord: hamlet.name.lowercased()))
        #expect(!word.isProminent && word.matches == [.places([hamlet.id])], "\(hamlet.name)")
    }
}
