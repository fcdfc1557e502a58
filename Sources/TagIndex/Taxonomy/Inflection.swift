/// Simple English inflections of search terms, so `dogs`, `beaches`, `puppies`, `wolves`, `children`
/// and `dog's` find what `dog`, `beach`, `puppy`, `wolf`, `child` and `dog` find.
///
/// Only the last word of a term is inflected (`golden retrievers`, `hot dogs`). The rules produce
/// candidates, not a single answer: `horses` gives `hors` and `horse`, `cookies` gives `cooky` and
/// `cookie`; the resolver takes the first candidate that names something, so a wrong candidate
/// costs a dictionary lookup, never a wrong result, as long as it names nothing.
package enum Inflection {
    /// Irregular plurals people type into a photo search; regular rules cover the rest.
    static let irregular: [String: String] = [
        "men": "man", "women": "woman", "children": "child", "people": "person", "feet": "foot",
        "teeth": "tooth", "geese": "goose", "mice": "mouse", "oxen": "ox", "lice": "louse",
        "fungi": "fungus", "cacti": "cactus", "octopi": "octopus", "dice": "die",
    ]

    /// Singular candidates for a normalized term (lowercase, single spaces), most likely first;
    /// empty when the last word does not look inflected.
    ///
    /// ```swift
    /// Inflection.singularForms(of: "golden retrievers")   // ["golden retriever"]
    /// ```
    static func singularForms(of text: String) -> [String] {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        guard let last = words.last, !last.isEmpty else { return [] }
        let head = words.dropLast().joined(separator: " ")
        var forms: [String] = []
        for candidate in singularForms(ofWord: String(last)) where !forms.contains(candidate) {
            forms.append(head.isEmpty ? candidate : head + " " + candidate)
        }
        return forms
    }

    /// Candidates for one word, most likely first.
    static func singularForms(ofWord word: String) -> [String] {
        var word = word
        var forms: [String] = []
        // Possessives: dog's -> dog; dogs' -> dogs (then the plural rules).
        if word.hasSuffix("'s") || word.hasSuffix("’s") {
            forms.append(String(word.dropLast(2)))
            return forms
        }
        if word.hasSuffix("s'") || word.hasSuffix("s’") {
            word = String(word.dropLast())
            forms.append(word)
        }
        if let singular = irregular[word] { return forms + [singular] }
        // Too short to be a plural worth undoing (bus, gas, yes).
        guard word.count > 3, word.hasSuffix("s") else { return forms }
        if word.hasSuffix("ss") || word.hasSuffix("us") || word.hasSuffix("is") { return forms }
        if word.hasSuffix("ies") {
            forms.append(String(word.dropLast(3)) + "y")      // puppies -> puppy
        }
        if word.hasSuffix("ves") {
            let stem = word.dropLast(3)
            forms.append(stem + "f")                           // wolves -> wolf
            forms.append(stem + "fe")                          // knives -> knife
        }
        if ["ses", "xes", "zes", "ches", "shes", "oes"].contains(where: word.hasSuffix) {
            forms.append(String(word.dropLast(2)))             // beaches -> beach, tomatoes -> tomato
        }
        forms.append(String(word.dropLast()))                  // dogs -> dog, horses -> horse
        return forms
    }
}
