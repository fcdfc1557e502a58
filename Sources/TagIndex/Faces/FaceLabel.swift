extension SQLiteIndex {
    /// The label an indexer gives an image whose faces it stored, at the best face's confidence:
    /// `face` (below `person` when the taxonomy has it). The word `face` searches it; vocabulary
    /// words with `facesAtLeast` count the stored faces of the images that carry it.
    ///
    /// A face is stored only at or above the detector's own minimum confidence, a threshold chosen by
    /// measurement (`FaceDetector.defaultMinimumConfidence`), so a stored face is already the
    /// detector's calibrated decision. When this label has no precision/recall curve of its own, every
    /// calibrated filter therefore passes it at any stored confidence (see
    /// ``CalibratedFilter/threshold(for:isFaceLabel:added:)``); a curve, where a model
    /// ships one, is used like any other label's.
    ///
    /// Usage: `let face = try index.search(SQLiteIndex.faceLabel)`
    public static let faceLabel = "face"
}

extension CalibratedFilter {
    /// The threshold this filter puts on a label: its curve's; for the ``SQLiteIndex/faceLabel``
    /// without a curve 0 (every stored face passes: the detector already decided); otherwise, for
    /// a label the filter never passes, 1 where a person added it, else nil.
    ///
    /// Usage: `let threshold = filter.threshold(for: curve, isFaceLabel: false, added: false)`
    package func threshold(for curve: [CurvePoint]?, isFaceLabel: Bool, added: Bool) -> Double? {
        if curve == nil, isFaceLabel { return 0 }
        return thresholdKeepingCorrections(for: curve, added: added)
    }
}

extension TaxonomySnapshot {
    /// The id of the ``SQLiteIndex/faceLabel``: present once an index run stored faces.
    var faceLabelID: Int64? { idByIdentifier[SQLiteIndex.faceLabel] }

    /// The unquantized threshold `filter` puts on `label` (see
    /// ``CalibratedFilter/threshold(for:isFaceLabel:added:)``); nil when it never passes.
    func calibratedThreshold(_ label: Int64, _ filter: CalibratedFilter, added: Bool) -> Double? {
        filter.threshold(for: curves[label], isFaceLabel: label == faceLabelID, added: added)
    }
}
