import ClassifyPeople

/// What a grouping of people was made from, in a few bytes: every described content (its hash,
/// face count and descriptor bytes), the corrections (how many, the newest id) and the grouping's
/// rules (``PeopleGrouper/rulesVersion``). People are regrouped when the fingerprint of the index
/// differs from the stored grouping's.
///
/// ```swift
/// if fingerprints.current != fingerprints.grouped { try await index.refreshPeople() }
/// ```
public struct PeopleFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Hex text, stored in `meta`. Usage: `print(fingerprint.text)`
    public var text: String

    /// Usage: `PeopleFingerprint(text: stored)`
    public init(text: String) { self.text = text }

    /// Usage: `PeopleFingerprint(contents: rows, corrections: (count, newestID))`
    package init(contents: [(hash: String, faces: Int64, bytes: Int64)], corrections: (count: Int64, newest: Int64)) {
        // FNV-1a over the sorted contents: independent of the order the database returns them in.
        var hash = FNV1a()
        hash.mix("rules \(PeopleGrouper.rulesVersion);".utf8)
        for content in contents.sorted(by: { $0.hash.utf8.lexicographicallyPrecedes($1.hash.utf8) }) {
            hash.mix(content.hash.utf8)
            hash.mix("/\(content.faces)/\(content.bytes);".utf8)
        }
        text = "\(contents.count)-\(corrections.count)-\(corrections.newest)-" + String(hash.value, radix: 16)
    }

    /// Usage: `print(fingerprint)`
    public var description: String { text }
}
