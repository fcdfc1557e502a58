/// The XML namespaces a sidecar uses, with the prefixes written when a file does not bind them yet.
///
/// Usage: `XMPNamespace.dublinCore.uri`
struct XMPNamespace: Sendable, Hashable {
    let uri: String
    let preferredPrefix: String

    /// The XMP packet wrapper (`x:xmpmeta`).
    static let meta = XMPNamespace(uri: "adobe:ns:meta/", preferredPrefix: "x")
    /// RDF: `rdf:RDF`, `rdf:Description`, `rdf:Bag`, `rdf:li`.
    static let rdf = XMPNamespace(uri: "http://www.w3.org/1999/02/22-rdf-syntax-ns#", preferredPrefix: "rdf")
    /// Dublin Core: `dc:subject`, the flat keywords every photo tool reads.
    static let dublinCore = XMPNamespace(uri: "http://purl.org/dc/elements/1.1/", preferredPrefix: "dc")
    /// Lightroom: `lr:hierarchicalSubject`, keyword paths separated by `|` (Lightroom, digiKam, darktable).
    static let lightroom = XMPNamespace(uri: "http://ns.adobe.com/lightroom/1.0/", preferredPrefix: "lr")
    /// Ours: which keywords classify-tool wrote, so the next export replaces them and keeps the rest.
    static let classify = XMPNamespace(uri: "https://classify-tool.invalid/ns/xmp/1.0/", preferredPrefix: "classify")
}
