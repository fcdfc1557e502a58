/// Adjacent plain words that together name a label or a vocabulary word are searched as that one
/// name: `hot dog` is the hotdog label, not images with something hot and a dog; `red fox`,
/// `living room` and `birthday parties` likewise. This is what lets single words such as `red` or
/// `night` be vocabulary words of their own without breaking `red fox` or `night snake`.
///
/// Only `.word` terms join (not phrases or prefixes); a per-term confidence may sit on the last
/// word (`hot dog:0.6`) and applies to the joined term. The longest name starting at each word wins.
package enum WordJoining {
    static func join(_ children: [QueryExpression], taxonomy: TaxonomySnapshot) -> [QueryExpression] {
        guard children.count > 1, taxonomy.maximumNameWords > 1 else { return children }
        var joined: [QueryExpression] = []
        var index = 0
        while index < children.count {
            if let name = longestName(children, at: index, taxonomy: taxonomy, shortest: 2) {
                joined.append(.term(name.term))
                index += name.length
            } else {
                joined.append(children[index])
                index += 1
            }
        }
        return joined
    }

    /// The longest run of at least `shortest` plain words from `index` that names a label or a
    /// vocabulary word, as one term, and how many words it took; nil when none does.
    static func longestName(
        _ children: [QueryExpression], at index: Int, taxonomy: TaxonomySnapshot, shortest: Int = 1
    ) -> (term: SearchTerm, length: Int)? {
        var run: [SearchTerm] = []
        while index + run.count < children.count, run.count < taxonomy.maximumNameWords,
            case .term(let term) = children[index + run.count], term.kind == .word {
            run.append(term)
            if term.minimumConfidence != nil { break }   // a confidence ends a name
        }
        guard run.count >= shortest else { return nil }
        for length in stride(from: run.count, through: shortest, by: -1) {
            let words = run.prefix(length)
            let text = words.map(\.text).joined(separator: " ")
            if taxonomy.entry(named: text) != nil {
                let term = SearchTerm(text, kind: .word, minimumConfidence: words.last!.minimumConfidence, offset: words.first!.offset)
                return (term, length)
            }
        }
        return nil
    }
}
