import Foundation

/// What a person did to a label of an image.
///
/// ```swift
/// if correction.kind == .removed { print("not a", correction.identifier) }
/// ```
public enum CorrectionKind: String, Sendable, Hashable, Codable {
    /// The label was added: it counts with confidence 1.
    case added
    /// The label was removed, with every label below it.
    case removed
}

/// One stored correction: a label added to or removed from the content of a file.
///
/// Corrections are keyed by the file's content hash, so they follow the file when it moves and
/// survive re-indexing, a touch and a new model; `paths` lists the indexed files with that content now.
///
/// ```swift
/// for correction in try index.corrections() { print(correction.kind, correction.identifier, correction.paths) }
/// ```
public struct LabelCorrection: Sendable, Hashable {
    /// ``ContentHash`` of the corrected content (hex).
    public var contentHash: String
    /// Label identifier (for a user label, its name).
    public var identifier: String
    /// Human name of the label (for a user label, its name).
    public var displayName: String
    /// Added or removed.
    public var kind: CorrectionKind
    /// Whether the label is the person's own, outside the taxonomy (`grandma`).
    public var isUserLabel: Bool
    /// When the correction was made.
    public var date: Date
    /// The indexed files with this content now, sorted.
    public var paths: [String]

    /// Memberwise, for the backends of this package.
    package init(contentHash: String, identifier: String, displayName: String, kind: CorrectionKind, isUserLabel: Bool, date: Date, paths: [String]) {
        self.contentHash = contentHash
        self.identifier = identifier
        self.displayName = displayName
        self.kind = kind
        self.isUserLabel = isUserLabel
        self.date = date
        self.paths = paths
    }
}

/// The label a correction names, as resolved from what a person typed.
///
/// ```swift
/// let report = try index.addLabel("grandma", to: [path])
/// if report.label.isUserLabel { print("new user label", report.label.identifier) }
/// ```
public struct CorrectionLabel: Sendable, Hashable {
    /// Label identifier (for a user label, its name as typed, trimmed).
    public var identifier: String
    /// Human name.
    public var displayName: String
    /// Whether the label is outside the taxonomy.
    public var isUserLabel: Bool
}

/// What a correction did to each path it was asked for.
///
/// ```swift
/// let report = try index.removeLabel("dog", from: paths)
/// let failed = report.outcomes.filter { $0.failure != nil }
/// ```
public struct CorrectionReport: Sendable, Hashable {
    /// The label, resolved.
    public var label: CorrectionLabel
    /// One outcome per path, in the order given.
    public var outcomes: [CorrectionOutcome]

    /// Memberwise, for the backends of this package.
    package init(label: CorrectionLabel, outcomes: [CorrectionOutcome]) {
        self.label = label
        self.outcomes = outcomes
    }
}

/// One path of a ``CorrectionReport``.
///
/// ```swift
/// if let failure = outcome.failure { print(outcome.path, failure) }
/// ```
public struct CorrectionOutcome: Sendable, Hashable {
    /// The path as given.
    public var path: String
    /// Why the path was not corrected (not indexed, or its classification failed); nil when corrected.
    public var failure: String?

    /// Memberwise, for the backends of this package.
    package init(path: String, failure: String?) {
        self.path = path
        self.failure = failure
    }
}
