/// "Did you mean": the known names (labels and vocabulary words) closest to an unknown term.
///
/// Distance is the optimal string alignment distance (Damerau-Levenshtein without repeated edits
/// of a substring): a swap of two adjacent letters is one edit, so `dgo` is one edit from `dog`.
/// A term of up to 5 letters accepts one edit, up to 10 letters two, longer terms three: two
/// edits turn most short words into unrelated ones (`sky` into `fly` and `hay`). Among names
/// equally close, those that occur in the index come first, the most frequent first; each label or
/// word is offered once, under its closest name.
package enum Suggestions {
    static func closest(
        to term: String, in taxonomy: TaxonomySnapshot, imageCounts: [Int64: Int] = [:], limit: Int = 3
    ) -> [String] {
        let forms = TermText.lookupForms(term).map(Array.init).filter { !$0.isEmpty }
        guard let typed = forms.first else { return [] }
        let allowed = allowedEdits(forLength: typed.count)

        struct Candidate {
            var name: String
            var distance: Int
            var images: Int
        }
        // One candidate per label (by id) or vocabulary word (by word): its closest name.
        var best: [String: Candidate] = [:]
        func consider(_ key: String, name: String, normalized: String, images: Int) {
            let target = Array(normalized)
            let distance = forms.map { editDistance($0, target, bound: allowed) }.min() ?? allowed + 1
            guard distance <= allowed else { return }
            let candidate = Candidate(name: name, distance: distance, images: images)
            if let known = best[key], known.distance <= distance { return }
            best[key] = candidate
        }
        for (id, name, normalized) in taxonomy.allNames {
            consider("label \(id)", name: name, normalized: normalized, images: imageCounts[id] ?? 0)
        }
        for word in taxonomy.vocabularyWords {
            let images = word.labelIDs.map { imageCounts[$0] ?? 0 }.max() ?? 0
            consider("word \(word.definition.word)", name: word.definition.word, normalized: word.definition.word, images: images)
        }
        // Closest first; then present in the index, most images first; then shorter, then by name.
        let ranked = best.values.sorted { a, b in
            if a.distance != b.distance { return a.distance < b.distance }
            if (a.images > 0) != (b.images > 0) { return a.images > 0 }
            if a.images != b.images { return a.images > b.images }
            if a.name.count != b.name.count { return a.name.count < b.name.count }
            return a.name < b.name
        }
        var names: [String] = []
        for candidate in ranked where !names.contains(where: { TermText.normalize($0) == TermText.normalize(candidate.name) }) {
            names.append(candidate.name)
            if names.count == limit { break }
        }
        return names
    }

    /// How many edits a suggestion may be from a term of `length` characters.
    static func allowedEdits(forLength length: Int) -> Int {
        switch length {
        case ...5: 1
        case ...10: 2
        default: 3
        }
    }

    /// Optimal string alignment distance (insertions, deletions, substitutions and swaps of two
    /// adjacent characters, each costing 1), giving up (returning bound + 1) once it exceeds `bound`.
    static func editDistance(_ a: [Character], _ b: [Character], bound: Int) -> Int {
        if abs(a.count - b.count) > bound { return bound + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows: two back (for swaps), previous, current.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var distance = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, twoBack[j - 2] + 1)
                }
                current[j] = distance
                rowMinimum = min(rowMinimum, distance)
            }
            if rowMinimum > bound { return bound + 1 }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return min(previous[b.count], bound + 1)
    }
}
