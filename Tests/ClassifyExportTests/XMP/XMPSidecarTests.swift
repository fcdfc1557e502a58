import ClassifyExport
import Foundation
import Testing

/// The sidecar merge on its own (no exiftool needed).
@Suite struct XMPSidecarTests {
    @Test func ourPreviousKeywordsAreReplaced() throws {
        let start = try XMPSidecar.merging(
            XMPKeywords(subjects: ["mine"], hierarchicalSubjects: []), into: nil, path: "t.xmp")
        let ours = try XMPSidecar(data: start, path: "t.xmp")
        #expect(ours.subjects == ["mine"] && ours.written.subjects == ["mine"])
        let next = try XMPSidecar.merging(XMPKeywords(subjects: ["dog"], hierarchicalSubjects: ["animal|dog"]), into: start, path: "t.xmp")
        let sidecar = try XMPSidecar(data: next, path: "t.xmp")
        #expect(sidecar.subjects == ["dog"])
        #expect(sidecar.hierarchicalSubjects == ["animal|dog"])
        #expect(sidecar.written == XMPKeywords(subjects: ["dog"], hierarchicalSubjects: ["animal|dog"]))
        let emptied = try XMPSidecar(data: XMPSidecar.merging(XMPKeywords(subjects: [], hierarchicalSubjects: []), into: next, path: "t.xmp"), path: "t.xmp")
        #expect(emptied.subjects.isEmpty && emptied.hierarchicalSubjects.isEmpty && emptied.written.subjects.isEmpty)
    }

    @Test func specialCharactersRoundTrip() throws {
        let words = ["a < b & \"c\"", "über ☕", "x]]>y"]
        let data = try XMPSidecar.merging(XMPKeywords(subjects: words, hierarchicalSubjects: []), into: nil, path: "t.xmp")
        #expect(try XMPSidecar(data: data, path: "t.xmp").subjects == words)
    }

    @Test func aBareRDFRootAndAMissingDescriptionAreAccepted() throws {
        let bare = Data("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"></rdf:RDF>
            """.utf8)
        let data = try XMPSidecar.merging(XMPKeywords(subjects: ["dog"], hierarchicalSubjects: []), into: bare, path: "t.xmp")
        #expect(try XMPSidecar(data: data, path: "t.xmp").subjects == ["dog"])
    }

    @Test func malformedFilesAreRefused() {
        for text in ["", "<a><b></a>", "<x:xmpmeta><b/></x:xmpmeta>", "<plain>text</plain>", "\u{0}\u{1}binary"] {
            #expect(throws: SidecarError.self, "\(text.debugDescription)") {
                try XMPSidecar(data: Data(text.utf8), path: "t.xmp")
            }
        }
    }

    @Test func sidecarNames() {
        #expect(SidecarNaming.replacingExtension.sidecarPath(for: "/p/IMG_1.JPG") == "/p/IMG_1.xmp")
        #expect(SidecarNaming.appendingExtension.sidecarPath(for: "/p/IMG_1.JPG") == "/p/IMG_1.JPG.xmp")
        #expect(SidecarNaming.replacingExtension.sidecarPath(for: "/p/noext") == "/p/noext.xmp")
        #expect(AtomicFile.temporaryPath(for: "/p/IMG_1.xmp") == "/p/.IMG_1.xmp.classify-tmp")
    }
}
