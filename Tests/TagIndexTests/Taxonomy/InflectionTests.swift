import Testing
@testable import TagIndex

@Suite struct InflectionTests {
    @Test func regularPluralsGiveTheirSingularFirstOrAmongTheCandidates() {
        #expect(Inflection.singularForms(of: "dogs") == ["dog"])
        #expect(Inflection.singularForms(of: "beaches") == ["beach", "beache"])
        #expect(Inflection.singularForms(of: "boxes") == ["box", "boxe"])
        #expect(Inflection.singularForms(of: "puppies") == ["puppy", "puppie"])
        #expect(Inflection.singularForms(of: "cookies") == ["cooky", "cookie"])
        #expect(Inflection.singularForms(of: "wolves") == ["wolf", "wolfe", "wolve"])
        #expect(Inflection.singularForms(of: "knives") == ["knif", "knife", "knive"])
        #expect(Inflection.singularForms(of: "horses") == ["hors", "horse"])
        #expect(Inflection.singularForms(of: "tomatoes") == ["tomato", "tomatoe"])
    }

    @Test func irregularPluralsAndPossessives() {
        #expect(Inflection.singularForms(of: "children") == ["child"])
        #expect(Inflection.singularForms(of: "women") == ["woman"])
        #expect(Inflection.singularForms(of: "oxen") == ["ox"])
        #expect(Inflection.singularForms(of: "dog's") == ["dog"])
        #expect(Inflection.singularForms(of: "dogs'") == ["dogs", "dog"])
    }

    @Test func wordsThatAreNotPluralsAreLeftAlone() {
        #expect(Inflection.singularForms(of: "glass").isEmpty)
        #expect(Inflection.singularForms(of: "bus").isEmpty)
        #expect(Inflection.singularForms(of: "cactus").isEmpty)
        #expect(Inflection.singularForms(of: "iris").isEmpty)
        #expect(Inflection.singularForms(of: "gas").isEmpty)
        #expect(Inflection.singularForms(of: "dog").isEmpty)
        #expect(Inflection.singularForms(of: "").isEmpty)
    }

    @Test func onlyTheLastWordOfATermIsInflected() {
        #expect(Inflection.singularForms(of: "golden retrievers") == ["golden retriever"])
        #expect(Inflection.singularForms(of: "hot dogs") == ["hot dog"])
        #expect(Inflection.singularForms(of: "dogs house").isEmpty)
    }
}
