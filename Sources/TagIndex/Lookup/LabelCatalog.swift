import GRDB

/// One label of the index's taxonomy with its place in it and how many indexed images carry it.
///
/// ```swift
/// for label in try index.labelCatalog() where label.imageCount > 0 { print(label.identifier, label.imageCount) }
/// ```
public struct CatalogLabel: Sendable, Hashable {
    /// Label identifier.
    public var identifier: String
    /// Label display name.
    public var displayName: String
    /// Other names a search term may use.
    public var synonyms: [String]
    /// Identifiers of the labels directly above it.
    public var parents: [String]
    /// Identifiers of the labels directly below it (empty for the classifier's own classes).
    public var children: [String]
    /// How many of the classifier's own classes it covers (1 for a class itself).
    public var classCount: Int
    /// Indexed images carrying the label or a label below it, at the storage floor.
    public var imageCount: Int

    /// Whether the label is one of the classifier's own classes.
    ///
    /// ```swift
    /// let classes = catalog.filter(\.isLeaf)
    /// ```
    public var isLeaf: Bool { children.isEmpty }
}

extension CatalogLabel {
    /// Every label of `taxonomy` sorted by identifier, with `imageCounts` (by label id): what
    /// both backends' `labelCatalog()` answer from their stored taxonomy and counts.
    package static func catalog(taxonomy: TaxonomySnapshot, imageCounts counts: [Int64: Int]) -> [CatalogLabel] {
        func identifiers(_ ids: [Int64]?) -> [String] {
            (ids ?? []).compactMap { taxonomy.labels[$0]?.identifier }.sorted()
        }
        return taxonomy.labels.values.map { label in
            let classCount = taxonomy.descendantsOrSelf(label.id).filter { taxonomy.children[$0]?.isEmpty ?? true }.count
            return CatalogLabel(
                identifier: label.identifier, displayName: label.displayName, synonyms: label.synonyms,
                parents: identifiers(taxonomy.parents[label.id]), children: identifiers(taxonomy.children[label.id]),
                classCount: classCount, imageCount: counts[label.id] ?? 0)
        }
        .sorted { $0.identifier < $1.identifier }
    }
}

extension SQLiteIndex {
    /// Every label of the taxonomy stored in the index, by identifier, with parents, children,
    /// synonyms and image counts: what a taxonomy browser shows without loading a model.
    ///
    /// ```swift
    /// let roots = try index.labelCatalog().filter { $0.parents.isEmpty }
    /// ```
    public func labelCatalog() throws -> [CatalogLabel] {
        try guardingStorage {
            try database.read { db in
                CatalogLabel.catalog(taxonomy: try taxonomy(db), imageCounts: try Self.imageCountsByLabelID(db))
            }
        }
    }

    /// `labels.image_count` of every label with at least one image, by label id.
    static func imageCountsByLabelID(_ db: Database) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, image_count FROM labels WHERE image_count > 0")
        while let row = try rows.next() { counts[row[0]] = row[1] }
        return counts
    }
}
