import Foundation

/// One correction as `classify-tool tag list --format json` lists it.
///
/// Usage: `let data = try JSONOutput.encode(corrections.map(CorrectionOutput.init))`
public struct CorrectionOutput: Codable, Sendable {
    public var identifier: String
    public var name: String
    public var kind: String
    public var userLabel: Bool
    /// The content the correction is kept for (it follows the file's content, not its path).
    public var contentHash: String
    public var date: String
    /// The indexed files with this content now.
    public var paths: [String]

    /// Usage: `CorrectionOutput(correction)`
    public init(_ correction: LabelCorrection) {
        identifier = correction.identifier
        name = correction.displayName
        kind = correction.kind.rawValue
        userLabel = correction.isUserLabel
        contentHash = correction.contentHash
        date = JSONOutput.timestamp(correction.date)
        paths = correction.paths
    }
}
