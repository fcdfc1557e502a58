import GRDB

/// A query expression with its terms resolved to label ids and thresholds.
package indirect enum MatchPlan {
    /// Images whose labels match, with a score.
    case labels(LabelMatch)
    /// Images whose number of stored faces is in a range, scored by the best face (a vocabulary
    /// word's `facesAtLeast`).
    case faces(FaceMatch)
    /// Images in which any of the people appears, without a score.
    case people(PeopleMatch)
    /// Every image of the query's scope, without a score.
    case all
    /// No image.
    case nothing
    case and([MatchPlan])
    case or([MatchPlan])
    case not(MatchPlan)

    /// Upper bound of the number of matching images, to order joins (smallest first).
    package func estimate(total: Int) -> Int {
        switch self {
        case .labels(let match): match.estimate
        case .faces(let match): match.estimate
        case .people(let match): match.estimate
        case .all: total
        case .nothing: 0
        case .and(let children): children.map { $0.estimate(total: total) }.min() ?? total
        case .or(let children): min(total, children.reduce(0) { $0 + $1.estimate(total: total) })
        case .not: total
        }
    }

    package var isNegation: Bool { if case .not = self { true } else { false } }
}

/// The labels one term matches.
package struct LabelMatch {
    /// Uniform threshold: labels whose subtrees match, compared on `best` (one
    /// index range per root). Empty when `calibrated` is used.
    package var roots: [Int64]
    /// Quantized threshold for `roots`.
    package var threshold: Int
    /// Calibrated: every label of the subtrees with its own quantized threshold,
    /// compared on the label's `best`. Labels that never pass are absent.
    package var calibrated: [(labelID: Int64, threshold: Int)]?
    /// Sum of the roots' stored image counts.
    package var estimate: Int

    package var isSingleRoot: Bool { calibrated == nil && roots.count == 1 }

    /// Each label a dense evaluation scans and the threshold its `best` must reach: the
    /// calibrated labels, or the roots at the uniform threshold.
    package var scans: [(labelID: Int64, threshold: Int)] {
        calibrated ?? roots.map { ($0, threshold) }
    }
}

/// Images whose number of stored faces (`image_faces.face_count`) is in `counts` and whose face
/// label (``SQLiteIndex/faceLabel``, the best face's confidence) reaches `threshold`; scored by it.
package struct FaceMatch {
    /// The face label's id.
    package var labelID: Int64
    /// Quantized threshold on the face label's `best`.
    package var threshold: Int
    /// How many faces an image may have (at least 1: an image without faces has no face label).
    package var counts: ClosedRange<Int>
    /// The face label's stored image count.
    package var estimate: Int
}

/// Images a person of the stored grouping is in (`face_people` joined to `images` by content).
package struct PeopleMatch {
    /// The people's ids.
    package var ids: [Int64]
    /// Their photo counts summed.
    package var estimate: Int
}

/// Builds a ``MatchPlan`` from a query and the taxonomy.
package struct MatchPlanner {
    let lookup: LabelLookup
    let taxonomy: TaxonomySnapshot
    let query: Query

    package init(lookup: LabelLookup, taxonomy: TaxonomySnapshot, query: Query) {
        self.lookup = lookup
        self.taxonomy = taxonomy
        self.query = query
    }

    /// Plans against a SQLite index inside a read of `db`.
    package init(db: Database, taxonomy: TaxonomySnapshot, query: Query) {
        self.init(lookup: .sqlite(db), taxonomy: taxonomy, query: query)
    }

    package func plan(_ expression: QueryExpression) throws -> MatchPlan {
        // Expressions built in code skip the parser's limits.
        guard expression.termCount <= Parser.maximumTerms else {
            throw TagIndexError.invalidInput("a query has at most \(Parser.maximumTerms) terms")
        }
        return try plan(expression, depth: 0)
    }

    private func plan(_ expression: QueryExpression, depth: Int) throws -> MatchPlan {
        guard depth <= Parser.maximumDepth else {
            throw TagIndexError.invalidInput("a query nests at most \(Parser.maximumDepth) levels")
        }
        switch expression {
        case .term(let term):
            return try plan(term)
        case .and(let written):
            let children = WordJoining.join(written, taxonomy: taxonomy)
            if children.isEmpty { return .all }
            if children.count == 1 { return try plan(children[0], depth: depth + 1) }
            return .and(try children.map { try plan($0, depth: depth + 1) })
        case .or(let children):
            if children.isEmpty { return .nothing }
            if children.count == 1 { return try plan(children[0], depth: depth + 1) }
            return .or(try children.map { try plan($0, depth: depth + 1) })
        case .not(let child):
            return .not(try plan(child, depth: depth + 1))
        }
    }

    /// A term's plan: its labels; for a vocabulary word with `facesAtLeast` N in an index that
    /// stores faces, `(labels AND NOT 1...N-1 faces) OR at least N faces`: the labels count unless
    /// the detector found fewer faces than the word needs (`group`, N = 3, is not a portrait with one
    /// face, but is a ballplayer photo where no face was found), and any image with N faces or more
    /// also matches. A word the classifier cannot see searches the faces alone.
    private func plan(_ term: SearchTerm) throws -> MatchPlan {
        if term.kind == .person { return people(try lookup.people().resolve(term)) }
        // A person's whole name, or a word of people's names, typed as a word finds them; with a
        // label of that name too, either.
        if term.kind != .prefix, term.minimumConfidence == nil, case let named = try lookup.people().called(term.text), !named.isEmpty {
            let resolver = TermResolver(lookup: lookup, taxonomy: taxonomy)
            guard case .name? = try? resolver.resolve(term) else { return people(named) }
            return .or([try labelsPlan(term), people(named)])
        }
        return try labelsPlan(term)
    }

    private func people(_ entries: [PeopleDirectory.Entry]) -> MatchPlan {
        .people(PeopleMatch(ids: entries.map(\.id).sorted(), estimate: entries.reduce(0) { $0 + $1.photoCount }))
    }

    private func labelsPlan(_ term: SearchTerm) throws -> MatchPlan {
        let searched = try TermResolver(lookup: lookup, taxonomy: taxonomy).searched(for: term)
        let threshold = StorageFormat.threshold(term.minimumConfidence ?? query.minimumConfidence)
        let roots = taxonomy.minimalCover(searched.labels)
        guard let minimumCount = searched.facesAtLeast, let face = taxonomy.faceLabelID else {
            return try plan(roots: roots, threshold: threshold)
        }
        let enough = try plan(faces: minimumCount...Int.max, label: face, threshold: threshold)
        if searched.labels.isEmpty { return enough }
        var labels = try plan(roots: roots, threshold: threshold)
        if case .nothing = labels { return enough }
        if minimumCount > 1 {
            // Any stored face counts here, whatever the query's threshold.
            let fewer = try plan(faces: 1...(minimumCount - 1), label: face, threshold: StorageFormat.floorQuantized)
            labels = .and([labels, .not(fewer)])
        }
        // Where the labels' subtrees hold the face label (`people`, `group`), they already match
        // every image with enough faces, at the same threshold.
        if roots.contains(where: { taxonomy.descendantsOrSelf($0).contains(face) }) { return labels }
        return .or([labels, enough])
    }

    private func plan(roots: [Int64], threshold: Int) throws -> MatchPlan {
        let counts = try lookup.imageCounts(roots)
        let estimate = roots.reduce(0) { $0 + (counts[$1] ?? 0) }
        guard let calibration = query.calibration else {
            return .labels(LabelMatch(roots: roots, threshold: threshold, calibrated: nil, estimate: estimate))
        }
        var labels: [(Int64, Int)] = []
        var seen: Set<Int64> = []
        let added = try lookup.addedLabelIDs()
        for root in roots {
            for label in taxonomy.descendantsOrSelf(root) where seen.insert(label).inserted {
                // A label the filter never passes still matches at confidence 1 where a person added it.
                guard let calibrated = taxonomy.calibratedThreshold(label, calibration, added: added.contains(label))
                else { continue }
                labels.append((label, max(threshold, StorageFormat.quantize(calibrated))))
            }
        }
        guard !labels.isEmpty else { return .nothing }
        return .labels(LabelMatch(roots: [], threshold: threshold, calibrated: labels, estimate: estimate))
    }

    /// Images with `counts` faces, their face label passing `threshold` (calibrated: at least the
    /// face label's, see ``TaxonomySnapshot/calibratedThreshold(_:_:added:)``).
    private func plan(faces counts: ClosedRange<Int>, label: Int64, threshold: Int) throws -> MatchPlan {
        var required = threshold
        if let calibration = query.calibration {
            guard let calibrated = taxonomy.calibratedThreshold(
                label, calibration, added: try lookup.addedLabelIDs().contains(label))
            else { return .nothing }
            required = max(threshold, StorageFormat.quantize(calibrated))
        }
        let estimate = try lookup.imageCounts([label])[label] ?? 0
        return .faces(FaceMatch(labelID: label, threshold: required, counts: counts, estimate: estimate))
    }
}
