/// One point of a label's precision/recall curve: at `threshold`, the label's
/// precision and recall measured on a calibration set.
///
/// ```swift
/// let point = CurvePoint(threshold: 0.4, precision: 0.92, recall: 0.71)
/// ```
public struct CurvePoint: Sendable, Hashable, Codable {
    /// Confidence threshold in 0...1.
    public var threshold: Double
    /// Precision of `confidence >= threshold` in 0...1.
    public var precision: Double
    /// Recall of `confidence >= threshold` in 0...1.
    public var recall: Double

    /// Creates a curve point.
    ///
    /// ```swift
    /// CurvePoint(threshold: 0.5, precision: 0.9, recall: 0.6)
    /// ```
    public init(threshold: Double, precision: Double, recall: Double) {
        self.threshold = threshold
        self.precision = precision
        self.recall = recall
    }
}

/// A label of the taxonomy: identifier, display name, synonyms, parents and an
/// optional precision/recall curve for the calibrated filters.
///
/// ```swift
/// let golden = LabelDefinition(
///     identifier: "golden_retriever", displayName: "Golden Retriever",
///     synonyms: ["golden"], parents: ["retriever"])
/// ```
public struct LabelDefinition: Sendable, Hashable, Codable {
    /// Stable identifier, e.g. `golden_retriever`. Unique in the taxonomy.
    public var identifier: String
    /// Human-readable name, e.g. `Golden Retriever`.
    public var displayName: String
    /// Other names a search term may use.
    public var synonyms: [String]
    /// Identifiers of the labels directly above this one (the taxonomy is a DAG).
    public var parents: [String]
    /// Precision/recall curve, or nil when the label was not calibrated.
    public var curve: [CurvePoint]?

    /// Creates a label definition.
    ///
    /// ```swift
    /// LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"])
    /// ```
    public init(
        identifier: String, displayName: String, synonyms: [String] = [],
        parents: [String] = [], curve: [CurvePoint]? = nil
    ) {
        self.identifier = identifier
        self.displayName = displayName
        self.synonyms = synonyms
        self.parents = parents
        self.curve = curve
    }
}
