import Foundation

/// The labels a model can report: its output classes (leaves) and the WordNet groups above them
/// (parents such as `dog`, `bird`, `vehicle`), read from the model directory's `taxonomy.json`.
///
/// A parent's confidence is the sum of the probabilities of the classes below it, each class
/// counted once even when it is reachable along several paths, capped at 1.
///
/// ```swift
/// let taxonomy = try LabelTaxonomy(contentsOf: directory.appending(path: "taxonomy.json"), classCount: 1000)
/// let dog = taxonomy.label(named: "dog")!
/// print(dog.displayName, taxonomy.classIndices(below: dog.index).count)   // "dog 118"
/// ```
public struct LabelTaxonomy: Sendable {
    /// The `formatVersion` this library reads.
    public static let supportedFormatVersion = 1

    /// One label of the taxonomy.
    public struct Label: Sendable, Hashable, Codable {
        /// Position in `labels`.
        public var index: Int
        /// Stable identifier: lowercase words joined by `_`, e.g. `golden_retriever`, `dog`.
        public var identifier: String
        /// Human-readable name, e.g. `golden retriever`.
        public var displayName: String
        /// WordNet 3.0 noun synset id, e.g. `n02099601`.
        public var wordNetID: String?
        /// Every WordNet lemma of the synset, e.g. `["dog", "domestic dog", "Canis familiaris"]`.
        public var synonyms: [String]
        /// Identifiers of the nearest kept ancestors (several are allowed).
        public var parents: [String]
        /// The network output this label is, or nil for a parent label.
        public var classIndex: Int?

        /// True for the network's own classes.
        public var isLeaf: Bool { classIndex != nil }
    }

    /// Leaves first (in class order), then parents.
    public let labels: [Label]
    /// For each label, the network classes it covers (itself for a leaf), sorted.
    private let coveredClasses: [[Int]]
    private let indexByIdentifier: [String: Int]
    /// Label index of each network class.
    public let leafIndexByClass: [Int]

    /// Builds a taxonomy from labels; checks identifiers are unique, parents exist, the graph has
    /// no cycle and every class 0..<classCount has exactly one leaf.
    public init(labels: [Label], classCount: Int, file: String = "taxonomy.json") throws(ModelLoadingError) {
        var indexByIdentifier: [String: Int] = [:]
        for (position, label) in labels.enumerated() {
            guard label.index == position else { throw .malformed(file: file, reason: "label '\(label.identifier)' has index \(label.index) at position \(position)") }
            guard indexByIdentifier.updateValue(position, forKey: label.identifier) == nil else {
                throw .malformed(file: file, reason: "identifier '\(label.identifier)' appears twice")
            }
        }
        var leafIndexByClass = [Int](repeating: -1, count: classCount)
        for label in labels {
            if let classIndex = label.classIndex {
                guard classIndex >= 0, classIndex < classCount, leafIndexByClass[classIndex] == -1 else {
                    throw .malformed(file: file, reason: "label '\(label.identifier)' has class index \(classIndex), out of range or taken")
                }
                leafIndexByClass[classIndex] = label.index
            }
            for parent in label.parents where indexByIdentifier[parent] == nil {
                throw .malformed(file: file, reason: "label '\(label.identifier)' names unknown parent '\(parent)'")
            }
        }
        if let missing = leafIndexByClass.firstIndex(of: -1) {
            throw .malformed(file: file, reason: "class \(missing) has no label")
        }
        // Covered classes: propagate each leaf up through every path, with cycle detection.
        var covered = [Set<Int>](repeating: [], count: labels.count)
        for label in labels {
            guard let classIndex = label.classIndex else { continue }
            var stack = [label.index], visited: Set<Int> = []
            while let current = stack.popLast() {
                guard visited.insert(current).inserted else { continue }
                covered[current].insert(classIndex)
                stack.append(contentsOf: labels[current].parents.map { indexByIdentifier[$0]! })
                if visited.count > labels.count { throw .malformed(file: file, reason: "parent links form a cycle") }
            }
        }
        for label in labels where label.classIndex == nil && covered[label.index].isEmpty {
            throw .malformed(file: file, reason: "parent label '\(label.identifier)' covers no class")
        }
        try Self.checkAcyclic(labels, indexByIdentifier: indexByIdentifier, file: file)
        self.labels = labels
        self.coveredClasses = covered.map { $0.sorted() }
        self.indexByIdentifier = indexByIdentifier
        self.leafIndexByClass = leafIndexByClass
    }

    private static func checkAcyclic(_ labels: [Label], indexByIdentifier: [String: Int], file: String) throws(ModelLoadingError) {
        // 0 = unvisited, 1 = on the current path, 2 = done.
        var state = [UInt8](repeating: 0, count: labels.count)
        for start in labels.indices where state[start] == 0 {
            var stack: [(label: Int, nextParent: Int)] = [(start, 0)]
            state[start] = 1
            while let top = stack.last {
                let parents = labels[top.label].parents
                if top.nextParent == parents.count {
                    state[top.label] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].nextParent += 1
                let parent = indexByIdentifier[parents[top.nextParent]]!
                if state[parent] == 1 { throw .malformed(file: file, reason: "parent links form a cycle through '\(labels[parent].identifier)'") }
                if state[parent] == 0 {
                    state[parent] = 1
                    stack.append((parent, 0))
                }
            }
        }
    }

    /// Reads `taxonomy.json` (format in `Models/FORMAT.md`).
    public init(contentsOf url: URL, classCount: Int) throws(ModelLoadingError) {
        struct FileContents: VersionedModelFile {
            struct Entry: Decodable {
                var identifier: String, wnid: String?, name: String, synonyms: [String], parents: [String], classIndex: Int?
            }
            var format: String, formatVersion: Int, labels: [Entry]
        }
        let contents = try ModelJSONFile.read(
            FileContents.self, from: url, format: "classify-taxonomy", supportedVersion: Self.supportedFormatVersion)
        let labels = contents.labels.enumerated().map { position, entry in
            Label(index: position, identifier: entry.identifier, displayName: entry.name, wordNetID: entry.wnid,
                  synonyms: entry.synonyms, parents: entry.parents, classIndex: entry.classIndex)
        }
        try self.init(labels: labels, classCount: classCount, file: url.lastPathComponent)
    }

    /// A taxonomy of leaves only, for models shipped without `taxonomy.json`.
    public init(leavesOf description: ModelDescription) throws(ModelLoadingError) {
        try self.init(labels: description.labels.map {
            Label(index: $0.index, identifier: $0.identifier, displayName: $0.name, wordNetID: $0.wnid,
                  synonyms: [$0.name], parents: [], classIndex: $0.index)
        }, classCount: description.labels.count, file: "model.json")
    }

    /// The label with this identifier.
    public func label(_ identifier: String) -> Label? { indexByIdentifier[identifier].map { labels[$0] } }

    /// The label whose identifier, display name or synonym is `name` (case-insensitive, `_` = space).
    public func label(named name: String) -> Label? {
        let key = Self.normalized(name)
        if let exact = indexByIdentifier[key.replacingOccurrences(of: " ", with: "_")] { return labels[exact] }
        return labels.first { label in label.synonyms.contains { Self.normalized($0) == key } || Self.normalized(label.displayName) == key }
    }

    /// Network classes covered by the label at `index`.
    public func classIndices(below index: Int) -> [Int] { coveredClasses[index] }

    /// Every label's confidence for one image: leaves take their class probability, parents the
    /// sum over the classes they cover (capped at 1). Indexed like `labels`.
    public func confidences(probabilities: [Float]) -> [Float] {
        labels.indices.map { index in
            if let classIndex = labels[index].classIndex { return probabilities[classIndex] }
            var sum: Float = 0
            for classIndex in coveredClasses[index] { sum += probabilities[classIndex] }
            return min(sum, 1)
        }
    }

    /// Label indices that are true for an image of class `classIndex`: its leaf and every ancestor.
    public func truthLabels(forClass classIndex: Int) -> Set<Int> {
        Set(labels.indices.filter { coveredClasses[$0].binarySearchContains(classIndex) })
    }

    static func normalized(_ text: String) -> String {
        text.lowercased().replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
    }
}

extension Array where Element == Int {
    func binarySearchContains(_ value: Int) -> Bool {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < count && self[low] == value
    }
}
