/// XMP sidecars for tests, as other photo tools write them.
///
/// ```swift
/// let xmp = TestXMP.faceRegions(width: 2400, height: 1800, [.init(name: "Anna", x: 1048, y: 730, width: 46, height: 56)])
/// ```
public enum TestXMP {
    /// A face region in pixels of the image (top-left origin), as MWG stores it: normalized centre and size.
    public struct Region: Sendable {
        public var name: String
        public var x: Double, y: Double, width: Double, height: Double

        public init(name: String, x: Double, y: Double, width: Double, height: Double) {
            self.name = name; self.x = x; self.y = y; self.width = width; self.height = height
        }
    }

    /// A sidecar with MWG face regions (`mwg-rs:Regions`) over a `width` x `height` image, the first
    /// region's name as an attribute (digiKam), the others' as elements (Lightroom).
    public static func faceRegions(width: Double, height: Double, _ regions: [Region]) -> String {
        let items = regions.enumerated().map { index, region in
            let area = """
                <mwg-rs:Area stArea:x="\((region.x + region.width / 2) / width)" stArea:y="\((region.y + region.height / 2) / height)" \
                stArea:w="\(region.width / width)" stArea:h="\(region.height / height)" stArea:unit="normalized"/>
                """
            return index == 0
                ? "<rdf:li><rdf:Description mwg-rs:Name=\"\(region.name)\" mwg-rs:Type=\"Face\">\(area)</rdf:Description></rdf:li>"
                : "<rdf:li rdf:parseType=\"Resource\"><mwg-rs:Name>\(region.name)</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type>\(area)</rdf:li>"
        }
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"
                xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#" xmlns:stDim="http://ns.adobe.com/xap/1.0/sType/Dimensions#">
              <mwg-rs:Regions rdf:parseType="Resource">
               <mwg-rs:AppliedToDimensions stDim:w="\(Int(width))" stDim:h="\(Int(height))" stDim:unit="pixel"/>
               <mwg-rs:RegionList><rdf:Bag>
                \(items.joined(separator: "\n    "))
               </rdf:Bag></mwg-rs:RegionList>
              </mwg-rs:Regions>
             </rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }
}
