import Foundation
import Testing

@testable import Classify

@Suite("XMP reader")
struct XMPReaderTests {
    static func packet(_ body: String) -> [UInt8] {
        Array(
            """
            <?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
            <x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
            \(body)
            </rdf:RDF></x:xmpmeta>
            <?xpacket end='w'?>
            """.utf8)
    }

    @Test func propertiesAsElements() throws {
        let metadata = XMPReader.metadata(
            inPacket: Self.packet(
                """
                <rdf:Description rdf:about='' xmlns:exif='http://ns.adobe.com/exif/1.0/' xmlns:tiff='http://ns.adobe.com/tiff/1.0/'>
                  <exif:DateTimeOriginal>2017-08-21T10:20:30.5-05:00</exif:DateTimeOriginal>
                  <exif:GPSLatitude>36,58.5N</exif:GPSLatitude>
                  <exif:GPSLongitude>89,12,15W</exif:GPSLongitude>
                  <exif:GPSAltitude>1234/10</exif:GPSAltitude>
                  <exif:GPSAltitudeRef>1</exif:GPSAltitudeRef>
                  <tiff:Make>FUJIFILM</tiff:Make>
                </rdf:Description>
                """))
        let taken = try #require(metadata.dateTaken)
        #expect(taken.iso8601 == "2017-08-21T10:20:30.5-05:00")
        #expect(taken.source == .xmp)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 36.975) < 1e-9)
        #expect(abs(location.longitude - -(89 + 12.0 / 60 + 15.0 / 3600)) < 1e-9)
        #expect(location.altitude == -123.4)
        #expect(metadata.camera?.make == "FUJIFILM")
    }

    @Test func propertiesAsAttributesWithOtherPrefixes() throws {
        let metadata = XMPReader.metadata(
            inPacket: Self.packet(
                """
                <rdf:Description rdf:about='' xmlns:e='http://ns.adobe.com/exif/1.0/' xmlns:xap='http://ns.adobe.com/xap/1.0/'
                  xap:CreateDate='2016-05-04T03:02:01Z' e:GPSLatitude='35,0.696N' e:GPSLongitude='135,46.086E'/>
                """))
        #expect(metadata.dateTaken?.iso8601 == "2016-05-04T03:02:01Z")
        #expect(abs((metadata.location?.latitude ?? 0) - 35.0116) < 1e-9)
    }

    @Test func theOriginalDateWinsOverCreateDate() {
        let metadata = XMPReader.metadata(
            inPacket: Self.packet(
                """
                <rdf:Description xmlns:exif='http://ns.adobe.com/exif/1.0/' xmlns:xmp='http://ns.adobe.com/xap/1.0/'
                  xmp:CreateDate='2016-05-04T03:02:01' exif:DateTimeOriginal='2015-01-01T00:00:00'/>
                """))
        #expect(metadata.dateTaken?.iso8601 == "2015-01-01T00:00:00")
    }

    @Test(arguments: [
        ("48,51.5N", 48 + 51.5 / 60), ("48,51,30S", -(48 + 51.5 / 60)), ("0,30.0n", 0.5),
    ] as [(String, Double)])
    func coordinateForms(text: String, degrees: Double) throws {
        let value = try #require(XMPReader.Properties.angle(text, positive: "N", negative: "S"))
        #expect(abs(value - degrees) < 1e-12)
    }

    @Test(arguments: ["48.5N", "48,51.5", "48,61N", "48,51.5E", "-48,51.5N", ",51N", "48,,N", "48,1,2,3N", "1e2,0N", ""])
    func badCoordinateForms(text: String) {
        #expect(XMPReader.Properties.angle(text, positive: "N", negative: "S") == nil)
    }

    @Test func malformedXMLGivesWhatCameBefore() {
        let metadata = XMPReader.metadata(
            inPacket: Array("<x:xmpmeta><rdf:Description xmlns:exif='e' exif:DateTimeOriginal='2015-01-01T00:00:00'><oops".utf8))
        #expect(metadata.dateTaken?.year == 2015)
        #expect(XMPReader.metadata(inPacket: Array("\u{0}\u{1}<<<>".utf8)).isEmpty)
        #expect(XMPReader.metadata(inPacket: []).isEmpty)
    }

    @Test func processingInstructionsNeverReachTheParser() {
        // Foundation's XMLParser on Linux traps on a processing instruction without data.
        let date = "<rdf:Description xmlns:exif='e' exif:DateTimeOriginal='2015-01-01T00:00:00'/>"
        for wrapper in ["<?xpacket?>", "<?x?>", "<??>", "<?xpacket begin='' ?>", "<?xml version='1.0'?>"] {
            #expect(XMPReader.metadata(inPacket: Array((wrapper + date).utf8)).dateTaken?.year == 2015)
        }
        #expect(XMPReader.metadata(inPacket: Array((date + "<?unterminated").utf8)).dateTaken?.year == 2015)
        #expect(XMPReader.withoutProcessingInstructions(Array("a<?b?>c<?d".utf8)[...]) == Array("ac".utf8))
    }

    @Test func sidecarNamesAndReading() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xmp-sidecar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("photo.jpg")
        #expect(XMPSidecarReader.candidateURLs(for: photo).map(\.lastPathComponent) == [
            "photo.jpg.xmp", "photo.jpg.XMP", "photo.xmp", "photo.XMP",
        ])
        #expect(XMPSidecarReader.metadata(forImageAt: photo) == nil)
        let older = Self.packet("<rdf:Description xmlns:exif='e' exif:DateTimeOriginal='2001-01-01T00:00:00'/>")
        try Data(older).write(to: folder.appendingPathComponent("photo.xmp"))
        #expect(XMPSidecarReader.metadata(forImageAt: photo)?.dateTaken?.year == 2001)
        let exact = Self.packet("<rdf:Description xmlns:exif='e' exif:DateTimeOriginal='2002-01-01T00:00:00'/>")
        try Data(exact).write(to: folder.appendingPathComponent("photo.jpg.xmp"))
        #expect(XMPSidecarReader.metadata(forImageAt: photo)?.dateTaken?.year == 2002)
        // A folder with a sidecar's name is not read.
        let other = folder.appendingPathComponent("other.jpg")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("other.jpg.xmp"), withIntermediateDirectories: true)
        #expect(XMPSidecarReader.metadata(forImageAt: other) == nil)
    }
}
