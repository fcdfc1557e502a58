import ClassifySupport

/// Checks a search vocabulary against the taxonomy it is installed with (rules: `VocabularyCheck`).
package enum VocabularyRules {
    static func check(_ words: [VocabularyWord], against labels: [LabelDefinition]) throws {
        let entries = words.map {
            VocabularyCheck.Entry(
                word: $0.word, labels: $0.unsupportedExplanation == nil ? $0.labels : nil,
                unsupported: $0.unsupportedExplanation, facesAtLeast: $0.facesAtLeast)
        }
        let names = labels.map { (identifier: $0.identifier, names: [$0.identifier, $0.displayName] + $0.synonyms) }
        if let problem = VocabularyCheck.firstProblem(entries, labels: names) {
            throw TagIndexError.invalidInput("the search vocabulary cannot be installed: \(problem)")
        }
    }
}
