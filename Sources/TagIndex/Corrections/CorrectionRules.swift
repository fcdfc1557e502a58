/// How a person's corrections change the labels the model gave an image: a pure function of the
/// model's own confidences, the corrections and the taxonomy, so the corrected set is the same
/// whether it is computed when a correction is made, when the file is classified again (after a
/// touch or with a new model) or when the taxonomy changes.
///
/// 1. A removed label goes with every label below it (removing `dog` removes its breeds).
/// 2. The model gives a parent the sum of the probabilities of its classes (see Classify's
///    `LabelTaxonomy`), so each label above a removed one loses the confidence of the removed
///    classes below it: `animal` at 0.96 on a cat photo keeps what its other classes gave it, not
///    the cat's 0.93. A parent left below the storage floor goes.
/// 3. Each label above a removed one stays only while one of its other children still holds it;
///    this repeats upward (`animal` goes with `dog` unless `cat` is there too): its own
///    confidence alone does not hold it.
/// 4. An added label gets confidence 1 (and raises its ancestors as any observation does). Adds are
///    applied after removals, so a breed added under a removed `dog` brings `dog` back as its parent.
package enum CorrectionRules {
    /// The quantized confidence of an added label: 1.
    static let certain = StorageFormat.quantize(1)

    /// The own confidences after the corrections, from the model's own confidences (label id ->
    /// quantized confidence).
    package static func apply(
        model: [Int64: Int], removed: [Int64], added: [Int64], taxonomy: TaxonomySnapshot
    ) -> [Int64: Int] {
        var confidence = model
        var above: Set<Int64> = []
        var removedClasses: Set<Int64> = []
        var gone: Set<Int64> = []
        for label in removed {
            for below in taxonomy.descendantsOrSelf(label) where gone.insert(below).inserted {
                if confidence[below] != nil && (taxonomy.children[below] ?? []).isEmpty { removedClasses.insert(below) }
                confidence[below] = nil
                // Above every removed label: a class below `cat` may also sit below `domestic_animal`.
                above.formUnion((taxonomy.ancestorsOrSelf[below] ?? [below]).dropFirst())
            }
        }
        above.subtract(gone)
        // Each class counts once per ancestor, however many routes lead up to it.
        var lost: [Int64: Int] = [:]
        for removedClass in removedClasses {
            for ancestor in (taxonomy.ancestorsOrSelf[removedClass] ?? []).dropFirst() {
                lost[ancestor, default: 0] += model[removedClass] ?? 0
            }
        }
        for (parent, amount) in lost {
            guard let own = confidence[parent] else { continue }
            confidence[parent] = own - amount >= StorageFormat.floorQuantized ? own - amount : nil
        }
        if !above.isEmpty {
            var present = Set(subtreeConfidences(confidence, taxonomy: taxonomy).keys)
            var changed = true
            while changed {
                changed = false
                for parent in above where present.contains(parent) {
                    let held = (taxonomy.children[parent] ?? []).contains(where: present.contains)
                    if !held {
                        confidence[parent] = nil
                        changed = true
                    }
                }
                if changed { present = Set(subtreeConfidences(confidence, taxonomy: taxonomy).keys) }
            }
        }
        for label in added { confidence[label] = certain }
        return confidence
    }

    /// Each label's subtree confidence (`best`): the highest own confidence of it or any label below.
    static func subtreeConfidences(_ confidence: [Int64: Int], taxonomy: TaxonomySnapshot) -> [Int64: Int] {
        BatchWriter.rollUp(confidence.map { ($0.key, $0.value) }, taxonomy: taxonomy).best
    }
}
