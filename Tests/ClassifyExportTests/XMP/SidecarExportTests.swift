import ClassifyExport
import ClassifySupport
import ClassifyTestSupport
import Foundation
import TagIndex
import Testing

/// XMP sidecars as photo tools see them: every check reads the file back with exiftool.
@Suite(.enabled(if: ExifTool.isInstalled, "needs exiftool (Debian: libimage-exiftool-perl) to read the sidecars back"))
struct SidecarExportTests {
    let fixture: ExportFixture
    init() throws { fixture = try ExportFixture() }

    /// A sidecar as another tool would have left it: foreign namespaces and properties (a
    /// darktable edit history, a rating, a title in two languages), a comment, the person's own
    /// keywords, and one of them ("golden retriever") the same as a label we export.
    static let foreign = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <!-- written by hand -->
          <rdf:Description rdf:about=""
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:darktable="http://darktable.sf.net/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmp:Rating="4"
            darktable:xmp_version="5"
            darktable:history_end="1">
           <darktable:history>
            <rdf:Seq>
             <rdf:li darktable:num="0" darktable:operation="exposure" darktable:enabled="1"/>
            </rdf:Seq>
           </darktable:history>
           <dc:title>
            <rdf:Alt>
             <rdf:li xml:lang="x-default">Sunday walk</rdf:li>
             <rdf:li xml:lang="de">Sonntagsspaziergang</rdf:li>
            </rdf:Alt>
           </dc:title>
           <dc:subject>
            <rdf:Bag>
             <rdf:li>family &amp; friends</rdf:li>
             <rdf:li>golden retriever</rdf:li>
            </rdf:Bag>
           </dc:subject>
          </rdf:Description>
          <rdf:Description rdf:about="" xmlns:lr="http://ns.adobe.com/lightroom/1.0/">
           <lr:hierarchicalSubject>
            <rdf:Bag>
             <rdf:li>people|family</rdf:li>
            </rdf:Bag>
           </lr:hierarchicalSubject>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    /// Tags other than the keyword lists (ours included), for before/after comparisons.
    static func otherTags(_ tags: [String: Any]) -> NSDictionary {
        var rest = tags
        for key in ["XMP-dc:Subject", "XMP-lr:HierarchicalSubject", "XMP-classify:Subjects", "XMP-classify:HierarchicalSubjects"] {
            rest.removeValue(forKey: key)
        }
        return rest as NSDictionary
    }

    @Test func newSidecarHoldsFlatAndHierarchicalKeywords() throws {
        try fixture.classify("a.jpg", [("golden_retriever", 0.8), ("dog", 0.85), ("animal", 0.9), ("grass", 0.5), ("outdoor", 0.6)])
        let exporter = SidecarExporter(naming: .replacingExtension, dryRun: false)
        let results = try fixture.records().map(exporter.export)
        #expect(results.map(\.outcome) == [.created])
        #expect(results.first?.sidecarPath == fixture.path("a.xmp"))
        let tags = try ExifTool.xmpTags(fixture.path("a.xmp"))
        #expect(ExifTool.list(tags, "XMP-dc:Subject") == ["golden retriever", "grass"])
        #expect(ExifTool.list(tags, "XMP-lr:HierarchicalSubject") == ["animal|dog|golden retriever", "outdoor|grass"])
        // The same export again changes nothing, not even the bytes.
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path("a.xmp")))
        #expect(try fixture.records().map(exporter.exportAgain) == [.unchanged])
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path("a.xmp"))) == before)
    }

    @Test func aLibraryPathOfASharedIndexGetsNoSidecar() throws {
        try fixture.index.write(batch: [.classified(ImageClassification(
            path: "photos:/2023/a.jpg", size: 1, modificationTime: Date(timeIntervalSince1970: 1_700_000_000), contentHash: "aa",
            width: 640, height: 480, model: ExportFixture.model, observations: [LabelConfidence(identifier: "grass", confidence: 0.9)]))])
        let exporter = SidecarExporter(naming: .replacingExtension, dryRun: false)
        let results = try fixture.records().map(exporter.export)
        #expect(results.map(\.imagePath) == ["photos:/2023/a.jpg"])
        guard case .skipped(let reason)? = results.first?.outcome else {
            Issue.record("not skipped: \(results)")
            return
        }
        #expect(reason.contains("library path"))
        #expect(!FileManager.default.fileExists(atPath: "photos:"))
    }

    @Test func foreignFieldsAndTheUsersKeywordsSurviveTwoExports() throws {
        let sidecar = fixture.path("b.jpg.xmp")
        try Data(Self.foreign.utf8).write(to: URL(fileURLWithPath: sidecar))
        let original = try ExifTool.xmpTags(sidecar)
        #expect(ExifTool.list(original, "XMP-dc:Subject") == ["family & friends", "golden retriever"])
        #expect(original["XMP-xmp:Rating"] != nil && original["XMP-darktable:History"] != nil)

        // First export: golden retriever (already the person's keyword) and grass.
        try fixture.classify("b.jpg", [("golden_retriever", 0.8), ("dog", 0.85), ("animal", 0.9), ("grass", 0.5), ("outdoor", 0.6)])
        let first = try fixture.records().map(SidecarExporter(naming: .appendingExtension, dryRun: false).export)
        #expect(first.map(\.outcome) == [.updated])
        var tags = try ExifTool.xmpTags(sidecar)
        #expect(ExifTool.list(tags, "XMP-dc:Subject") == ["family & friends", "golden retriever", "grass"])
        #expect(ExifTool.list(tags, "XMP-lr:HierarchicalSubject") == ["people|family", "animal|dog|golden retriever", "outdoor|grass"])
        #expect(ExifTool.list(tags, "XMP-classify:Subjects") == ["grass"])
        #expect(Self.otherTags(tags) == Self.otherTags(original))

        // Second export after a correction: grass removed, "grandma" added. Our grass goes; the
        // person's "golden retriever" stays although the model still sees one.
        _ = try fixture.index.removeLabel("grass", from: [fixture.path("b.jpg")])
        _ = try fixture.index.addLabel("grandma", to: [fixture.path("b.jpg")])
        let second = try fixture.records().map(SidecarExporter(naming: .appendingExtension, dryRun: false).export)
        #expect(second.map(\.outcome) == [.updated])
        tags = try ExifTool.xmpTags(sidecar)
        #expect(ExifTool.list(tags, "XMP-dc:Subject") == ["family & friends", "golden retriever", "grandma"])
        #expect(ExifTool.list(tags, "XMP-lr:HierarchicalSubject") == ["people|family", "grandma", "animal|dog|golden retriever"])
        #expect(Self.otherTags(tags) == Self.otherTags(original))
        let text = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(text.contains("<!-- written by hand -->"))
        #expect(!text.hasPrefix("<?xml"), "no XML declaration is added to a file that had none")
    }

    @Test func aCorruptSidecarIsAFailedRowAndStaysUntouched() throws {
        try fixture.classify("c.jpg", [("grass", 0.5)])
        try fixture.classify("d.jpg", [("grass", 0.5)])
        try fixture.classify("e.jpg", [("grass", 0.5)])
        try fixture.classify("f.jpg", [("grass", 0.5)])
        let broken: [String: Data] = [
            "c.xmp": Data(Self.foreign.utf8.prefix(400)),  // truncated: libxml2 alone would "recover" it
            "d.xmp": Data("<html><body>not xmp</body></html>".utf8),
            "e.xmp": Data("""
                <?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]>
                <x:xmpmeta xmlns:x="adobe:ns:meta/">&e;</x:xmpmeta>
                """.utf8),
        ]
        for (name, data) in broken { try data.write(to: URL(fileURLWithPath: fixture.path(name))) }
        let results = try fixture.records().map(SidecarExporter(naming: .replacingExtension, dryRun: false).export)
        #expect(results.map(\.imagePath) == ["c.jpg", "d.jpg", "e.jpg", "f.jpg"].map(fixture.path))
        for result in results.prefix(3) {
            guard case .failed(.notXMP) = result.outcome else {
                Issue.record("\(result.sidecarPath): expected a failed row, got \(result.outcome)")
                continue
            }
        }
        #expect(results.last?.outcome == .created)
        for (name, data) in broken {
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path(name))) == data, "\(name) was modified")
        }
        #expect(ExifTool.list(try ExifTool.xmpTags(fixture.path("f.xmp")), "XMP-dc:Subject") == ["grass"])
    }

    @Test func dryRunWritesNothingAndSharedSidecarsFail() throws {
        try fixture.classify("g.jpg", [("grass", 0.5)])
        try fixture.classify("g.jpg.copy.jpg", [("grass", 0.5)])  // between the two in path order
        try fixture.classify("g.png", [("golden_retriever", 0.7)])
        try fixture.classify("h.png", [("golden_retriever", 0.7)])
        try fixture.classify("i.jpg", [("dog", 0.9)])  // no curve: nothing passes high precision
        let results = try fixture.records().map(SidecarExporter(naming: .replacingExtension, dryRun: true).export)
        #expect(results.map(\.imagePath) == ["g.jpg", "g.jpg.copy.jpg", "g.png", "h.png", "i.jpg"].map(fixture.path))
        #expect(results.map(\.outcome) == [
            .created, .created, .failed(.shared(path: fixture.path("g.xmp"), with: fixture.path("g.jpg"))), .created,
            .skipped(reason: "no label passes the filter"),
        ])
        #expect(!FileManager.default.fileExists(atPath: fixture.path("g.xmp")))
        // Appending the extension gives each its own.
        let own = try fixture.records().map(SidecarExporter(naming: .appendingExtension, dryRun: false).export)
        #expect(own.map(\.outcome) == [.created, .created, .created, .created, .skipped(reason: "no label passes the filter")])
        #expect(!FileManager.default.fileExists(atPath: fixture.path("i.jpg.xmp")))
    }

    @Test func aNameThatIsNotUTF8GetsItsSidecarBesideIt() throws {
        // `caf\xE9.jpg` from an old FAT disk: the sidecar's name carries the same bytes.
        let name = RawPath.string(fromBytes: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        try fixture.classify(name, [("grass", 0.5)])
        let result = try #require(try fixture.records().map(SidecarExporter(naming: .replacingExtension, dryRun: false).export).first)
        #expect(result.outcome == .created)
        let sidecarBytes = RawPath.bytes(of: fixture.root.path) + Array("/caf".utf8) + [0xE9] + Array(".xmp".utf8)
        #expect(RawPath.bytes(of: result.sidecarPath) == sidecarBytes)
        #expect(RawPath.exists(result.sidecarPath))
        let data = try #require(try AtomicFile.read(result.sidecarPath))
        #expect(try XMPSidecar(data: data, path: result.sidecarPath).subjects == ["grass"])
        let line = RecordFormat.jsonl.line(for: try #require(try fixture.records().first))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((json["pathBytes"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init)
            == RawPath.bytes(of: fixture.root.path) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8))
    }

    @Test func atomicWritesKeepPermissionsAndLeaveNoTemporaryFile() throws {
        let path = fixture.path("h.xmp")
        try Data(Self.foreign.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let merged = try XMPSidecar.merging(
            XMPKeywords(subjects: ["dog"], hierarchicalSubjects: ["animal|dog"]), into: Data(Self.foreign.utf8), path: path)
        try AtomicFile.write(merged, to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: AtomicFile.temporaryPath(for: path)))
        #expect(try XMPSidecar(data: Data(contentsOf: URL(fileURLWithPath: path)), path: path).written.subjects == ["dog"])
    }
}

extension SidecarExporter {
    /// A fresh exporter's result for one record (each export run starts with no claimed sidecars).
    func exportAgain(_ record: ExportRecord) -> SidecarOutcome {
        SidecarExporter(naming: naming, dryRun: dryRun).export(record).outcome
    }
}
