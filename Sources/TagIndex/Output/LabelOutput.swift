import Foundation

/// A label of the taxonomy: one element of `classify-tool labels --format json` (with its WordNet
/// id, from the model's taxonomy) and of the gallery's `GET /api/labels` (with its children, from
/// the index's catalog).
///
/// Usage: `let data = try JSONOutput.encode(catalog.map(LabelOutput.init))`
public struct LabelOutput: Codable, Sendable {
    public var identifier: String
    public var displayName: String
    public var parents: [String]
    /// The labels right below it (gallery).
    public var children: [String]?
    public var synonyms: [String]
    /// The classifier's classes at or below the label.
    public var classes: Int
    /// Images carrying it (absent when there is no index to count in).
    public var images: Int?
    /// The WordNet synset id, when the taxonomy knows it (command line).
    public var wnid: String?

    /// A label as the model's taxonomy describes it.
    ///
    /// Usage: `LabelOutput(identifier: "dog", displayName: "dog", parents: ["canine"], synonyms: [], classes: 118)`
    public init(
        identifier: String, displayName: String, parents: [String], children: [String]? = nil, synonyms: [String], classes: Int,
        images: Int? = nil, wnid: String? = nil
    ) {
        self.identifier = identifier
        self.displayName = displayName
        self.parents = parents
        self.children = children
        self.synonyms = synonyms
        self.classes = classes
        self.images = images
        self.wnid = wnid
    }

    /// A label of the index's catalog.
    ///
    /// Usage: `LabelOutput(catalogLabel)`
    public init(_ label: CatalogLabel) {
        self.init(
            identifier: label.identifier, displayName: label.displayName, parents: label.parents, children: label.children,
            synonyms: label.synonyms, classes: label.classCount, images: label.imageCount)
    }
}
