import ClassifySupport
import ClassifyTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Paths as bytes carried in strings: every byte string survives the round trip, valid UTF-8 is
/// its own string, and the bytes reach the file.
@Suite("Paths are bytes")
struct RawPathTests {
    @Test func validUTF8IsItsOwnString() {
        for text in ["/photos/cat.jpg", "/photos/café ☕.jpg", "new\nline\ttab\\back", "-dash", "", "𝄞 \u{10FF7F}"] {
            #expect(RawPath.string(fromBytes: Array(text.utf8)) == text)
            #expect(RawPath.bytes(of: text) == Array(text.utf8))
            #expect(RawPath.displayed(text) == text)
        }
    }

    @Test func bytesThatAreNotUTF8BecomeReservedScalarsAndComeBack() {
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let path = RawPath.string(fromBytes: latin1)
        #expect(path.unicodeScalars.map(\.value) == [0x63, 0x61, 0x66, 0x10FFE9, 0x2E, 0x6A, 0x70, 0x67])
        #expect(RawPath.bytes(of: path) == latin1)
        #expect(RawPath.displayed(path) == "caf\u{FFFD}.jpg")
        // A name that really holds a reserved scalar is escaped byte by byte, so it cannot be
        // mistaken for the escape of one byte.
        let literal = Array("x\u{10FFE9}y".utf8)
        let escaped = RawPath.string(fromBytes: literal)
        #expect(escaped.unicodeScalars.count == 6)
        #expect(RawPath.bytes(of: escaped) == literal)
        #expect(escaped != path)
        // Overlong forms, surrogates, values above U+10FFFF and cut sequences are bytes, not text.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF, 0xFE, 0x80]] {
            let text = RawPath.string(fromBytes: bad)
            #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x10FF80 })
            #expect(RawPath.bytes(of: text) == bad)
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomBytesRoundTrip(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<2000 {
            let count = Int.random(in: 0...24, using: &random)
            // Biased towards the bytes of multi-byte sequences, where mistakes hide.
            let bytes = (0..<count).map { _ in
                Bool.random(using: &random) ? UInt8.random(in: 0x80...0xFF, using: &random) : UInt8.random(in: 1...0xFF, using: &random)
            }
            let text = RawPath.string(fromBytes: bytes)
            #expect(RawPath.bytes(of: text) == bytes, "\(bytes)")
            if let valid = String(validating: bytes, as: UTF8.self), !valid.unicodeScalars.contains(where: { $0.value >= 0x10FF80 }) {
                #expect(text.unicodeScalars.elementsEqual(valid.unicodeScalars))
            }
        }
    }

    @Test func theBytesReachTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "classify-rawpath-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { removeTree(atPath: folder.path) }
        let raw = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9, 0x0A] + Array(".jpg".utf8)
        let fd = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        #expect(fd >= 0)
        close(fd)
        let path = RawPath.string(fromBytes: raw)
        #expect(RawPath.exists(path))
        #expect(!FileManager.default.fileExists(atPath: RawPath.displayed(path)), "the displayed form is not a path")
        #expect(RawPath.withCString(path) { access($0, R_OK) } == 0)
    }

    @Test func portableJSONKeepsTheBytesBesideReadableText() throws {
        let path = RawPath.string(fromBytes: Array("/p/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let plain: [String: Any] = ["path": "/p/ok.jpg", "size": 3]
        let plainData = try JSONSerialization.data(withJSONObject: plain, options: [.sortedKeys])
        #expect(try RawPath.portableJSON(plainData) == plainData, "JSON without escaped bytes is left alone")
        let data = try JSONSerialization.data(withJSONObject: ["results": [["path": path, "size": 3]], "keeper": path] as [String: Any])
        let portable = try RawPath.portableJSON(data)
        #expect(String(validating: Array(portable), as: UTF8.self) != nil)
        // Swift's own strict parser reads it (it refuses lone surrogates, so they are not used).
        struct Hit: Decodable { var path: String; var pathBytes: String?; var size: Int }
        struct Page: Decodable { var results: [Hit]; var keeper: String; var keeperBytes: String }
        let page = try JSONDecoder().decode(Page.self, from: portable)
        #expect(page.results[0].path == "/p/caf\u{FFFD}.jpg")
        #expect(page.results[0].pathBytes.flatMap { Data(base64Encoded: $0) }.map(Array.init) == RawPath.bytes(of: path))
        #expect(Data(base64Encoded: page.keeperBytes).map(Array.init) == RawPath.bytes(of: path))
    }
}
