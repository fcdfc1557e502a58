import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XMP sidecar, parsed with a real XML parser (libxml2 through Foundation's `XMLDocument`),
/// read for its keywords and rewritten with every other property, namespace, comment and
/// processing instruction intact.
///
/// Which keywords are ours is recorded in the file itself (`classify:subjects`,
/// `classify:hierarchicalSubjects`): a later export replaces exactly those and keeps the keywords a
/// person or another tool wrote, even the same words, which are never recorded as ours.
///
/// A file that is not well-formed XML, declares a DOCTYPE (XMP never does; refusing it also
/// rules out entity tricks) or is not an XMP packet (`x:xmpmeta` or `rdf:RDF` at the root) throws
/// ``SidecarError/notXMP(path:reason:)``.
///
/// ```swift
/// let sidecar = try XMPSidecar(data: Data(contentsOf: url), path: url.path)
/// print(sidecar.subjects)
/// let updated = try XMPSidecar.merging(keywords, into: existingData, path: url.path)
/// ```
public struct XMPSidecar: Sendable {
    /// Every `dc:subject` keyword, in file order.
    public let subjects: [String]
    /// Every `lr:hierarchicalSubject` path, in file order.
    public let hierarchicalSubjects: [String]
    /// The keywords the last export recorded as its own.
    public let written: XMPKeywords

    /// Parses a sidecar's bytes.
    ///
    /// ```swift
    /// let sidecar = try XMPSidecar(data: bytes, path: "/photos/a.xmp")
    /// ```
    public init(data: Data, path: String) throws(SidecarError) {
        let packet = try XMPPacket(data: data, path: path)
        subjects = packet.items(.dublinCore, "subject")
        hierarchicalSubjects = packet.items(.lightroom, "hierarchicalSubject")
        written = XMPKeywords(
            subjects: packet.items(.classify, "subjects"), hierarchicalSubjects: packet.items(.classify, "hierarchicalSubjects"))
    }

    /// The bytes of the sidecar with our keywords replaced by `keywords`: a new packet when
    /// `existing` is nil, else `existing` with its own keywords (the ones not recorded as ours) and
    /// everything else kept.
    ///
    /// ```swift
    /// let bytes = try XMPSidecar.merging(keywords, into: nil, path: "/photos/a.xmp")
    /// ```
    public static func merging(_ keywords: XMPKeywords, into existing: Data?, path: String) throws(SidecarError) -> Data {
        try merging(keywords, updatingRegions: false, regions: nil, into: existing, path: path)
    }

    /// As ``merging(_:into:path:)``, and the faces as MWG regions (see ``XMPFaceRegions``): ours
    /// replaced by `regions` (nil or none: removed), another tool's kept.
    ///
    /// ```swift
    /// let bytes = try XMPSidecar.merging(keywords, regions: XMPFaceRegions(record: record), into: existing, path: path)
    /// ```
    public static func merging(_ keywords: XMPKeywords, regions: XMPFaceRegions?, into existing: Data?, path: String) throws(SidecarError) -> Data {
        try merging(keywords, updatingRegions: true, regions: regions, into: existing, path: path)
    }

    private static func merging(
        _ keywords: XMPKeywords, updatingRegions: Bool, regions: XMPFaceRegions?, into existing: Data?, path: String
    ) throws(SidecarError) -> Data {
        let packet = try XMPPacket(data: existing ?? Data(XMPPacket.emptyPacket.utf8), path: path)
        let oldOurs = XMPKeywords(
            subjects: packet.items(.classify, "subjects"), hierarchicalSubjects: packet.items(.classify, "hierarchicalSubjects"))
        let subjects = merge(packet.items(.dublinCore, "subject"), oldOurs: oldOurs.subjects, new: keywords.subjects)
        let paths = merge(
            packet.items(.lightroom, "hierarchicalSubject"), oldOurs: oldOurs.hierarchicalSubjects, new: keywords.hierarchicalSubjects)
        packet.setBag(.dublinCore, "subject", subjects.all)
        packet.setBag(.lightroom, "hierarchicalSubject", paths.all)
        packet.setBag(.classify, "subjects", subjects.ours)
        packet.setBag(.classify, "hierarchicalSubjects", paths.ours)
        if updatingRegions { packet.setFaceRegions(regions) }
        // Nothing to change: the bytes stay exactly as they are (no reformatting by a round trip).
        if let existing, !packet.changed { return existing }
        return packet.serialized(keepDeclaration: existing.map(XMPPacket.hasDeclaration) ?? false)
    }

    /// The keywords to store: the file's own (those not recorded as ours last time) then ours;
    /// ours are recorded only where the file did not already hold them.
    static func merge(_ present: [String], oldOurs: [String], new: [String]) -> (all: [String], ours: [String]) {
        let previous = Set(oldOurs)
        let theirs = present.filter { !previous.contains($0) }
        let theirSet = Set(theirs)
        let ours = XMPKeywords.unique(new.filter { !theirSet.contains($0) })
        // The file's own entries stay exactly as they were (order, repeats and all).
        return (theirs + ours, ours)
    }
}

/// The parsed XML of one sidecar and the edits an export makes to it. Not shared between threads.
final class XMPPacket {
    /// What a new sidecar starts from (the packet wrapper exiftool and Adobe write).
    static let emptyPacket = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="classify-tool">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="">
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>

        """

    let document: XMLDocument
    let rdf: XMLElement
    var descriptions: [XMLElement]
    /// Whether an edit changed the document since it was parsed.
    private(set) var changed = false

    /// Records an edit made outside ``setBag(_:_:_:)``.
    func markChanged() { changed = true }

    init(data: Data, path: String) throws(SidecarError) {
        try Self.checkWellFormed(data, path: path)
        let document: XMLDocument
        do {
            document = try XMLDocument(data: data, options: [.nodePreserveAll])
        } catch {
            throw .notXMP(path: path, reason: "\(error)")
        }
        guard let root = document.rootElement() else { throw .notXMP(path: path, reason: "it has no root element") }
        let rdf: XMLElement
        if Self.isElement(root, .rdf, "RDF") {
            rdf = root
        } else if Self.isElement(root, .meta, "xmpmeta") || Self.isElement(root, .meta, "xapmeta"),
            let inner = Self.childElements(root).first(where: { Self.isElement($0, .rdf, "RDF") })
        {
            rdf = inner
        } else {
            throw .notXMP(path: path, reason: "its root element is <\(root.name ?? "?")>, not an XMP packet (x:xmpmeta with rdf:RDF)")
        }
        self.document = document
        self.rdf = rdf
        descriptions = Self.childElements(rdf).filter { Self.isElement($0, .rdf, "Description") }
        if descriptions.isEmpty {
            let description = XMLElement(name: Self.qualifiedName(.rdf, "Description", at: rdf))
            description.addAttribute(XMLNode.attribute(withName: Self.qualifiedName(.rdf, "about", at: rdf), stringValue: "") as! XMLNode)
            Self.append(description, to: rdf)
            descriptions = [description]
            changed = true
        }
    }

    /// Refuses what XMLDocument would repair or expand: libxml2 in recovery mode turns a truncated
    /// file into a "valid" one, and resolves external entities. Foundation's XMLParser reports the
    /// first error instead (and prints nothing).
    private static func checkWellFormed(_ data: Data, path: String) throws(SidecarError) {
        guard !data.isEmpty else { throw .notXMP(path: path, reason: "the file is empty") }
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil || data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw .notXMP(path: path, reason: "it declares a DOCTYPE or entities, which XMP never uses")
        }
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let listener = ErrorListener()
        parser.delegate = listener
        let parsed = parser.parse()
        if let error = listener.error ?? parser.parserError {
            let code = (error as NSError).code
            throw .notXMP(
                path: path,
                reason: "malformed XML near line \(parser.lineNumber), column \(parser.columnNumber) (libxml2 error \(code))")
        }
        if !parsed { throw .notXMP(path: path, reason: "malformed XML near line \(parser.lineNumber)") }
    }

    private final class ErrorListener: NSObject, XMLParserDelegate {
        var error: Error?
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { if error == nil { error = parseError } }
        func parser(_ parser: XMLParser, validationErrorOccurred validationError: Error) {
            if error == nil { error = validationError }
        }
    }

    static func hasDeclaration(_ data: Data) -> Bool {
        var bytes = data.prefix(16)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.starts(with: Array("<?xml ".utf8))
    }

    // MARK: Reading

    static func isElement(_ element: XMLElement, _ namespace: XMPNamespace, _ localName: String) -> Bool {
        element.localName == localName && element.uri == namespace.uri
    }

    static func childElements(_ element: XMLElement) -> [XMLElement] {
        (element.children ?? []).compactMap { $0 as? XMLElement }
    }

    /// The property elements `namespace:localName` of every description.
    func properties(_ namespace: XMPNamespace, _ localName: String) -> [XMLElement] {
        descriptions.flatMap { Self.childElements($0).filter { Self.isElement($0, namespace, localName) } }
    }

    /// The items of a property: the `rdf:li` of its Bag, Seq or Alt, or its text when it is a simple value.
    func items(_ namespace: XMPNamespace, _ localName: String) -> [String] {
        var items: [String] = []
        for property in properties(namespace, localName) {
            let containers = Self.childElements(property).filter { element in
                ["Bag", "Seq", "Alt"].contains { Self.isElement(element, .rdf, $0) }
            }
            if containers.isEmpty {
                let text = (property.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                if !text.isEmpty { items.append(text) }
            }
            for container in containers {
                for item in Self.childElements(container) where Self.isElement(item, .rdf, "li") {
                    items.append(item.stringValue ?? "")
                }
            }
        }
        return items
    }

    // MARK: Writing

    /// Sets property `namespace:localName` to a Bag of `items`, in place of the property's first
    /// occurrence (its attributes and namespace declarations kept) or added to the description that
    /// binds the namespace (else the first). An empty list removes the property.
    func setBag(_ namespace: XMPNamespace, _ localName: String, _ items: [String]) {
        let existing = properties(namespace, localName)
        if items.isEmpty {
            for property in existing { property.detach() }
            if !existing.isEmpty { changed = true }
            return
        }
        if items == self.items(namespace, localName) && existing.count == 1 { return }
        changed = true
        let property: XMLElement
        let indent: String
        if let first = existing.first {
            for extra in existing.dropFirst() { extra.detach() }
            property = first
            property.setChildren(nil)
            indent = Self.indentation(of: property)
        } else {
            let description = descriptions.first { Self.boundPrefix(namespace.uri, at: $0) != nil } ?? descriptions[0]
            property = XMLElement(name: Self.qualifiedName(namespace, localName, at: description))
            Self.append(property, to: description)
            indent = Self.indentation(of: property)
        }
        let bag = XMLElement(name: Self.qualifiedName(.rdf, "Bag", at: property))
        for item in items {
            let li = XMLElement(name: Self.qualifiedName(.rdf, "li", at: property))
            li.stringValue = item
            bag.addChild(XMLNode.text(withStringValue: "\n" + indent + "  ") as! XMLNode)
            bag.addChild(li)
        }
        bag.addChild(XMLNode.text(withStringValue: "\n" + indent + " ") as! XMLNode)
        property.addChild(XMLNode.text(withStringValue: "\n" + indent + " ") as! XMLNode)
        property.addChild(bag)
        property.addChild(XMLNode.text(withStringValue: "\n" + indent) as! XMLNode)
    }

    /// `prefix:localName` with the prefix bound to `namespace` where `element` is; binds the
    /// preferred prefix (or a free variant of it) on `element` when none is.
    static func qualifiedName(_ namespace: XMPNamespace, _ localName: String, at element: XMLElement) -> String {
        if let prefix = boundPrefix(namespace.uri, at: element), !prefix.isEmpty { return prefix + ":" + localName }
        var prefix = namespace.preferredPrefix
        var suffix = 1
        while boundURI(prefix, at: element) != nil {
            prefix = namespace.preferredPrefix + String(suffix)
            suffix += 1
        }
        element.addNamespace(XMLNode.namespace(withName: prefix, stringValue: namespace.uri) as! XMLNode)
        return prefix + ":" + localName
    }

    /// The prefix bound to `uri` in scope at `element`, nearest declaration first.
    static func boundPrefix(_ uri: String, at element: XMLElement) -> String? {
        var node: XMLNode? = element
        var shadowed: Set<String> = []
        while let current = node as? XMLElement {
            for declaration in current.namespaces ?? [] {
                let prefix = declaration.name ?? ""
                if declaration.stringValue == uri && !shadowed.contains(prefix) { return prefix }
                shadowed.insert(prefix)
            }
            node = current.parent
        }
        return nil
    }

    /// The namespace bound to `prefix` in scope at `element`.
    static func boundURI(_ prefix: String, at element: XMLElement) -> String? {
        var node: XMLNode? = element
        while let current = node as? XMLElement {
            if let declaration = (current.namespaces ?? []).first(where: { ($0.name ?? "") == prefix }) {
                return declaration.stringValue
            }
            node = current.parent
        }
        return nil
    }

    /// Appends `child` as the last element of `parent`, before the whitespace that closes it, on a line of its own.
    static func append(_ child: XMLElement, to parent: XMLElement) {
        let indent = indentation(of: parent) + " "
        var position = parent.childCount
        if position > 0, let last = parent.child(at: position - 1), last.kind == .text,
            (last.stringValue ?? "").allSatisfy(\.isWhitespace)
        {
            position -= 1
        } else {
            insert(XMLNode.text(withStringValue: "\n" + indentation(of: parent)) as! XMLNode, at: position, into: parent)
        }
        insert(child, at: position, into: parent)
        insert(XMLNode.text(withStringValue: "\n" + indent) as! XMLNode, at: position, into: parent)
    }

    /// `insertChild(_:at:)`, which in swift-corelibs-foundation traps at the end of the children
    /// (it looks up the child at that index); `addChild` appends there.
    private static func insert(_ node: XMLNode, at position: Int, into parent: XMLElement) {
        if position >= parent.childCount {
            parent.addChild(node)
        } else {
            parent.insertChild(node, at: position)
        }
    }

    /// The spaces before `element` on its line, from the whitespace text before it (one per level otherwise).
    static func indentation(of element: XMLElement) -> String {
        if let parent = element.parent, element.index > 0, let before = parent.child(at: element.index - 1),
            before.kind == .text, let text = before.stringValue, let newline = text.lastIndex(of: "\n")
        {
            let tail = text[text.index(after: newline)...]
            if tail.allSatisfy({ $0 == " " || $0 == "\t" }) { return String(tail) }
        }
        return String(repeating: " ", count: max(0, element.level - 1))
    }

    /// The document's bytes; the XML declaration libxml2 adds is dropped when the file had none.
    func serialized(keepDeclaration: Bool) -> Data {
        var data = document.xmlData(options: [])
        if !keepDeclaration, Self.hasDeclaration(data), let end = data.range(of: Data("?>".utf8)) {
            var cut = end.upperBound
            if cut < data.endIndex, data[cut] == UInt8(ascii: "\n") { cut += 1 }
            data = data.subdata(in: cut..<data.endIndex)
        }
        return data
    }
}
