import Foundation

/// A model's labels with everything observations need: the taxonomy, and each label's calibrated
/// curve when the model directory has a `calibration.json`; and the search vocabulary on top of the
/// taxonomy when it has a `vocabulary.json`.
///
/// ```swift
/// let observations = model.labelSet.observations(probabilities: output.probabilities)
/// ```
public struct LabelSet: Sendable {
    public let taxonomy: LabelTaxonomy
    /// Curves indexed like `taxonomy.labels`; nil without a calibration file.
    public let curves: [PrecisionRecallCurve]?
    /// The calibration the curves came from.
    public let calibration: CalibrationFile?
    /// Everyday search words mapped to the taxonomy's labels; nil without a vocabulary file.
    public let vocabulary: SearchVocabulary?

    public init(taxonomy: LabelTaxonomy, calibration: CalibrationFile?, vocabulary: SearchVocabulary? = nil) {
        self.taxonomy = taxonomy
        self.calibration = calibration
        self.vocabulary = vocabulary
        curves = calibration.map { calibration in
            taxonomy.labels.map { calibration.curve(for: $0.identifier, isLeaf: $0.isLeaf) }
        }
    }

    /// Loads `taxonomy.json`, `calibration.json` and `vocabulary.json` from `directory`; a model
    /// without a taxonomy gets its leaves only, one without a calibration gets no curves, one
    /// without a vocabulary gets none. The vocabulary is checked against the taxonomy. At int8
    /// precision the curves come from `calibration-int8.json` when the directory has one (the
    /// filters calibrated on the int8 network's own confidences).
    init(directory: URL, description: ModelDescription, precision: InferencePrecision = .fp32) throws(ModelLoadingError) {
        let taxonomyURL = directory.appending(path: "taxonomy.json")
        let taxonomy = FileManager.default.fileExists(atPath: taxonomyURL.path)
            ? try LabelTaxonomy(contentsOf: taxonomyURL, classCount: description.labels.count)
            : try LabelTaxonomy(leavesOf: description)
        for label in description.labels where taxonomy.labels[taxonomy.leafIndexByClass[label.index]].identifier != label.identifier {
            throw .malformed(file: "taxonomy.json", reason: "class \(label.index) is '\(taxonomy.labels[taxonomy.leafIndexByClass[label.index]].identifier)' but model.json says '\(label.identifier)'")
        }
        let int8CalibrationURL = directory.appending(path: CalibrationFile.fileName(for: .int8))
        let calibrationURL = precision == .int8 && FileManager.default.fileExists(atPath: int8CalibrationURL.path)
            ? int8CalibrationURL : directory.appending(path: CalibrationFile.fileName(for: .fp32))
        let calibration = FileManager.default.fileExists(atPath: calibrationURL.path) ? try CalibrationFile(contentsOf: calibrationURL) : nil
        let vocabularyURL = directory.appending(path: "vocabulary.json")
        let vocabulary = FileManager.default.fileExists(atPath: vocabularyURL.path)
            ? try SearchVocabulary(contentsOf: vocabularyURL, taxonomy: taxonomy) : nil
        self.init(taxonomy: taxonomy, calibration: calibration, vocabulary: vocabulary)
    }

    /// Observations for every label of the taxonomy (leaves and parents), highest confidence first.
    public func observations(probabilities: [Float]) -> [ClassificationObservation] {
        let confidences = taxonomy.confidences(probabilities: probabilities)
        return Self.rankOrder(confidences).map { index in
            let label = taxonomy.labels[index]
            return ClassificationObservation(
                identifier: label.identifier, confidence: confidences[index], displayName: label.displayName,
                wordNetID: label.wordNetID, isLeaf: label.isLeaf, precisionRecallCurve: curves?[index])
        }
    }

    /// The indices of `confidences`, highest confidence first and equal ones in index order (NaN
    /// last). Each image ranks its ~1,800 labels, so this sorts one 64-bit key per label (the
    /// confidence's bits made to order as an unsigned integer, above the complemented index)
    /// instead of comparing (confidence, index) pairs through a closure.
    ///
    /// Usage: `let best = LabelSet.rankOrder(confidences).first`
    package static func rankOrder(_ confidences: [Float]) -> [Int] {
        precondition(confidences.count <= Int(UInt32.max))
        var keys = [UInt64](unsafeUninitializedCapacity: confidences.count) { keys, initialized in
            for (index, confidence) in confidences.enumerated() {
                keys[index] = UInt64(orderedBits(confidence)) << 32 | UInt64(UInt32.max - UInt32(index))
            }
            initialized = confidences.count
        }
        keys.sort(by: >)
        return keys.map { Int(UInt32.max - UInt32(truncatingIfNeeded: $0)) }
    }

    /// `value`'s bits, mapped so that unsigned order is numeric order (-0 as 0, NaN below all).
    private static func orderedBits(_ value: Float) -> UInt32 {
        if value.isNaN { return 0 }
        let bits = (value + 0).bitPattern
        return bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
    }
}
