import Foundation
import TagIndex
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The faces an export writes into a sidecar as Metadata Working Group regions
/// (`mwg-rs:Regions`), as digiKam, Lightroom and exiftool read them: the image's dimensions and,
/// per stored face, `Type` Face, the person's `Name` when named, and the `Area` normalized to the
/// upright image (center x/y, width, height).
///
/// A sidecar whose regions another tool wrote keeps them untouched (their names are read at index
/// time instead); the regions classify-tool wrote are recorded as ours (`classify:regions`) and
/// replaced by the next export.
///
/// ```swift
/// let regions = XMPFaceRegions(record: record)   // nil: faces were not looked for
/// ```
public struct XMPFaceRegions: Sendable, Hashable {
    /// One face. Usage: `region.name ?? "unnamed"`
    public struct Region: Sendable, Hashable {
        public var name: String?
        public var centerX: Double
        public var centerY: Double
        public var width: Double
        public var height: Double
    }

    /// The upright image's size in pixels.
    public var imageWidth: Int
    public var imageHeight: Int
    public var regions: [Region]

    /// The record's stored faces (named by their people); nil when faces were not looked for or
    /// the image's size is unknown.
    public init?(record: ExportRecord) {
        guard let faces = record.faces, let width = record.width, let height = record.height, width > 0, height > 0 else { return nil }
        imageWidth = width
        imageHeight = height
        regions = faces.map { face in
            Region(
                name: face.person?.name,
                centerX: Self.clamped((face.x + face.width / 2) / Double(width)), centerY: Self.clamped((face.y + face.height / 2) / Double(height)),
                width: Self.clamped(face.width / Double(width)), height: Self.clamped(face.height / Double(height)))
        }
    }

    static func clamped(_ value: Double) -> Double { min(1, max(0, value.isFinite ? value : 0)) }

    /// A number as MWG writers print it (up to 6 decimals, no trailing zeros).
    static func number(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension XMPNamespace {
    /// MWG regions: `mwg-rs:Regions`, `RegionList`, `Name`, `Type`, `Area`, `AppliedToDimensions`.
    static let mwgRegions = XMPNamespace(uri: "http://www.metadataworkinggroup.com/schemas/regions/", preferredPrefix: "mwg-rs")
    /// XMP's area structure: `stArea:x/y/w/h/unit`.
    static let area = XMPNamespace(uri: "http://ns.adobe.com/xmp/sType/Area#", preferredPrefix: "stArea")
    /// XMP's dimensions structure: `stDim:w/h/unit`.
    static let dimensions = XMPNamespace(uri: "http://ns.adobe.com/xap/1.0/sType/Dimensions#", preferredPrefix: "stDim")
}

extension XMPPacket {
    /// The marker of regions we wrote.
    static let regionsMarker = "classify-tool"

    /// Writes `regions` in place of the regions we wrote before (none: removes ours); a packet
    /// whose regions another tool wrote is left as it is.
    func setFaceRegions(_ regions: XMPFaceRegions?) {
        let existing = properties(.mwgRegions, "Regions")
        let ours = items(.classify, "regions").contains(Self.regionsMarker)
        guard existing.isEmpty || ours else { return }
        guard let regions, !regions.regions.isEmpty else {
            if !existing.isEmpty || ours {
                for property in existing { property.detach() }
                setBag(.classify, "regions", [])
                markChanged()
            }
            return
        }
        let description = descriptions.first { Self.boundPrefix(XMPNamespace.mwgRegions.uri, at: $0) != nil } ?? descriptions[0]
        let property = XMLElement(name: Self.qualifiedName(.mwgRegions, "Regions", at: description))
        Self.append(property, to: description)
        let indent = Self.indentation(of: property)
        func element(_ namespace: XMPNamespace, _ name: String, in parent: XMLElement) -> XMLElement {
            XMLElement(name: Self.qualifiedName(namespace, name, at: parent))
        }
        func attribute(_ namespace: XMPNamespace, _ name: String, _ value: String, on target: XMLElement) {
            target.addAttribute(XMLNode.attribute(withName: Self.qualifiedName(namespace, name, at: target), stringValue: value) as! XMLNode)
        }
        func line(_ depth: Int) -> XMLNode { XMLNode.text(withStringValue: "\n" + indent + String(repeating: " ", count: depth)) as! XMLNode }
        attribute(.rdf, "parseType", "Resource", on: property)
        let dimensions = element(.mwgRegions, "AppliedToDimensions", in: property)
        attribute(.dimensions, "w", String(regions.imageWidth), on: dimensions)
        attribute(.dimensions, "h", String(regions.imageHeight), on: dimensions)
        attribute(.dimensions, "unit", "pixel", on: dimensions)
        let list = element(.mwgRegions, "RegionList", in: property)
        let bag = element(.rdf, "Bag", in: property)
        for region in regions.regions {
            let item = element(.rdf, "li", in: property)
            attribute(.rdf, "parseType", "Resource", on: item)
            var fields: [XMLElement] = []
            let type = element(.mwgRegions, "Type", in: property)
            type.stringValue = "Face"
            fields.append(type)
            if let name = region.name {
                let named = element(.mwgRegions, "Name", in: property)
                named.stringValue = name
                fields.append(named)
            }
            let area = element(.mwgRegions, "Area", in: property)
            for (key, value) in [("x", region.centerX), ("y", region.centerY), ("w", region.width), ("h", region.height)] {
                attribute(.area, key, XMPFaceRegions.number(value), on: area)
            }
            attribute(.area, "unit", "normalized", on: area)
            fields.append(area)
            for field in fields {
                item.addChild(line(4))
                item.addChild(field)
            }
            item.addChild(line(3))
            bag.addChild(line(3))
            bag.addChild(item)
        }
        bag.addChild(line(2))
        list.addChild(line(2))
        list.addChild(bag)
        list.addChild(line(1))
        property.addChild(line(1))
        property.addChild(dimensions)
        property.addChild(line(1))
        property.addChild(list)
        property.addChild(line(0))
        // The same regions as last time: the file stays as it is.
        if ours, existing.count == 1, Self.summary(of: existing[0]) == Self.summary(of: property) {
            property.detach()
            return
        }
        for old in existing { old.detach() }
        setBag(.classify, "regions", [Self.regionsMarker])
        markChanged()
    }

    /// Every element's name, attributes and text below `element`, in order, whitespace aside.
    static func summary(of element: XMLElement) -> String {
        let attributes = (element.attributes ?? []).map { "\($0.localName ?? "")=\($0.stringValue ?? "")" }.sorted()
        let children = childElements(element)
        let text = children.isEmpty ? (element.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines) : ""
        return "<\(element.localName ?? "") \(attributes.joined(separator: " "))>\(text)" + children.map(summary(of:)).joined() + "</>"
    }
}
