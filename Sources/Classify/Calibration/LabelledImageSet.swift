import Foundation

/// Images whose true label is known from their location: the name of the sub-folder they sit in,
/// or else the start of the file name, as a WordNet id (`n02099601_0042.jpg`) or a label
/// identifier (`golden_retriever/0042.jpg`, `dog_12.png`), or else a WordNet id as one of the
/// `_`-separated parts of the name (`00042_n02099601.jpg`).
///
/// ```swift
/// let set = try LabelledImageSet(root: URL(fileURLWithPath: "labelled"), taxonomy: model.labelSet.taxonomy)
/// print(set.images.count, set.unlabelled.count)
/// ```
public struct LabelledImageSet: Sendable {
    /// One image and the taxonomy index of its true label.
    public struct Image: Sendable {
        public var url: URL
        public var labelIndex: Int
    }

    public var images: [Image]
    /// Image files whose label could not be worked out.
    public var unlabelled: [URL]

    public init(root: URL, taxonomy: LabelTaxonomy) throws {
        let lookup = TruthLookup(taxonomy: taxonomy)
        var images: [Image] = []
        var unlabelled: [URL] = []
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: root.path])
        }
        for case let url as URL in enumerator where ImageFileWalker.imageExtensions.contains(url.pathExtension.lowercased()) {
            let folder = url.deletingLastPathComponent().lastPathComponent
            let isDirectChild = url.deletingLastPathComponent().standardizedFileURL == root.standardizedFileURL
            let label = (isDirectChild ? nil : lookup.label(forName: folder)) ?? lookup.label(forFileStem: url.deletingPathExtension().lastPathComponent)
            if let label { images.append(Image(url: url, labelIndex: label)) } else { unlabelled.append(url) }
        }
        self.images = images.sorted { $0.url.path < $1.url.path }
        self.unlabelled = unlabelled.sorted { $0.path < $1.path }
    }
}

/// Maps names found in paths to taxonomy labels.
struct TruthLookup {
    let taxonomy: LabelTaxonomy
    private let byWordNetID: [String: Int]

    init(taxonomy: LabelTaxonomy) {
        self.taxonomy = taxonomy
        byWordNetID = Dictionary(taxonomy.labels.compactMap { label in label.wordNetID.map { ($0, label.index) } }, uniquingKeysWith: { first, _ in first })
    }

    /// A whole name: a WordNet id or a label identifier / display name.
    func label(forName name: String) -> Int? {
        if let index = byWordNetID[name.lowercased()] { return index }
        return taxonomy.label(LabelTaxonomy.normalized(name).replacingOccurrences(of: " ", with: "_"))?.index
    }

    /// The start of a file name: `n01440764_tench` -> the wnid; `golden_retriever_12` -> the
    /// longest `_`-separated prefix that is a label identifier.
    func label(forFileStem stem: String) -> Int? {
        let lowered = stem.lowercased()
        if lowered.count >= 9, lowered.hasPrefix("n"), lowered.dropFirst().prefix(8).allSatisfy(\.isNumber),
            let index = byWordNetID[String(lowered.prefix(9))] {
            return index
        }
        var parts = lowered.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        while !parts.isEmpty {
            if let label = taxonomy.label(parts.joined(separator: "_")) { return label.index }
            parts.removeLast()
        }
        // A WordNet id as a later part, as in benchmark corpora (`00042_n02099601_golden_retriever`).
        for part in lowered.split(separator: "_") where part.count == 9 && part.hasPrefix("n") && part.dropFirst().allSatisfy(\.isNumber) {
            if let index = byWordNetID[String(part)] { return index }
        }
        return nil
    }
}
