/// "Did you mean": the known names closest to an unknown term by edit distance.
enum Suggestions {
    static func closest(to term: String, in taxonomy: TaxonomySnapshot, limit: Int = 3) -> [String] {
        let target = Array(TermText.normalize(term))
        guard !target.isEmpty else { return [] }
        let allowed = max(2, target.count / 3)
        var best: [String: Int] = [:]
        for (name, normalized) in taxonomy.allNames {
            let distance = editDistance(target, Array(normalized), bound: allowed)
            if distance <= allowed { best[name] = min(best[name] ?? .max, distance) }
        }
        return best.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(limit).map(\.key)
    }

    /// Levenshtein distance, giving up (returning bound + 1) once it exceeds `bound`.
    static func editDistance(_ a: [Character], _ b: [Character], bound: Int) -> Int {
        if abs(a.count - b.count) > bound { return bound + 1 }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > bound { return bound + 1 }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
