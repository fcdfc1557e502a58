/// A face region another photo tool stored in XMP (Metadata Working Group regions,
/// `mwg-rs:Regions`, as digiKam, Lightroom and Picasa write them): the person's name and the
/// area, normalized to the upright image (0...1), as its center and size.
///
/// ```swift
/// for region in metadata.faceRegions where region.name != nil { print(region.name!, region.centerX) }
/// ```
public struct FaceRegion: Sendable, Hashable {
    /// The person's name; nil for an unnamed face. Usage: `region.name ?? "unknown"`
    public var name: String?
    /// Center and size as fractions of the upright image's width and height.
    /// Usage: `region.centerX * Double(width)`
    public var centerX: Double
    public var centerY: Double
    public var width: Double
    public var height: Double

    /// Usage: `FaceRegion(name: "Anna", centerX: 0.5, centerY: 0.4, width: 0.1, height: 0.15)`
    public init(name: String?, centerX: Double, centerY: Double, width: Double, height: Double) {
        self.name = name
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
    }

    /// The region in pixels of an upright `imageWidth` x `imageHeight` image, top-left origin.
    /// Usage: `let box = region.pixelRect(imageWidth: 4000, imageHeight: 3000)`
    public func pixelRect(imageWidth: Int, imageHeight: Int) -> PixelRect {
        let w = width * Double(imageWidth), h = height * Double(imageHeight)
        return PixelRect(x: centerX * Double(imageWidth) - w / 2, y: centerY * Double(imageHeight) - h / 2, width: w, height: h)
    }
}

/// Collects MWG face regions while XMPReader walks a packet: each `rdf:li` of a
/// `mwg-rs:RegionList` is one region, whose `Type`, `Name` and `Area` (`stArea:x/y/w/h`, with
/// `unit` normalized) come as attributes or as elements, in either RDF form. Regions of another
/// type (pets, focus areas) and areas outside the image are left out.
struct FaceRegionCollector {
    /// The regions read so far.
    private(set) var regions: [FaceRegion] = []
    private var regionListDepth: Int?
    private var depth = 0
    private var current: [String: String]?
    private var regionDepth = 0
    /// Regions read at most (a real photo has a few dozen faces).
    static let maximumRegions = 1_000

    mutating func start(_ localName: String, attributes: [String: String]) {
        depth += 1
        if localName == "RegionList" { regionListDepth = depth }
        guard let listDepth = regionListDepth, depth > listDepth else { return }
        if localName == "li", current == nil {
            current = [:]
            regionDepth = depth
        }
        if current != nil {
            for (name, value) in attributes {
                let local = String(name.split(separator: ":").last ?? "")
                if ["Name", "Type", "x", "y", "w", "h", "unit"].contains(local), current?[local] == nil { current?[local] = value }
            }
        }
    }

    mutating func leaf(_ localName: String, text: String) {
        guard current != nil, ["Name", "Type"].contains(localName), current?[localName] == nil else { return }
        current?[localName] = text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    mutating func end(_ localName: String) {
        defer { depth -= 1 }
        if let listDepth = regionListDepth, depth == listDepth { regionListDepth = nil }
        guard let region = current, depth == regionDepth, localName == "li" else { return }
        current = nil
        guard regions.count < Self.maximumRegions, (region["Type"] ?? "Face").caseInsensitiveCompare("Face") == .orderedSame,
            (region["unit"] ?? "normalized") == "normalized",
            let x = region["x"].flatMap(Double.init), let y = region["y"].flatMap(Double.init),
            let w = region["w"].flatMap(Double.init), let h = region["h"].flatMap(Double.init),
            [x, y, w, h].allSatisfy({ $0.isFinite }), (0...1).contains(x), (0...1).contains(y), w > 0, h > 0, w <= 1, h <= 1
        else { return }
        let name = region["Name"].flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        regions.append(FaceRegion(name: name, centerX: x, centerY: y, width: w, height: h))
    }
}
