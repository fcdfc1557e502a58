import Foundation
import Testing
@testable import TagIndex

/// Content hashes of files and of bytes: no index involved.
@Suite struct ContentHashTests {
    static let pinned: [(String, [UInt8])] = [
        ("7c28513d42f5d0c7", []),
        ("78889f18e99cb0a6", Array("a".utf8)),
        ("43df581621d8206d", Array("hello world".utf8)),
        ("a3e4724340b487a0", (0..<100).map { UInt8($0) }),
        ("e3235a75e003c1e8", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
    ]

    @Test func valuesArePinned() {
        for (expected, bytes) in Self.pinned {
            #expect(ContentHash.hex(of: bytes) == expected, "\(bytes.count) bytes")
        }
    }

    @Test func streamingInAnyChunksGivesTheSameHash() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let whole = ContentHash.hex(of: bytes)
        for chunk in [1, 3, 7, 31, 32, 33, 100, 999] {
            var hasher = ContentHash()
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                hasher.update(bytes[start..<min(start + chunk, bytes.count)])
            }
            #expect(hasher.finalizeHex() == whole, "chunk \(chunk)")
        }
    }

    /// Collections without contiguous storage (a reversed array, a string's lazy view) and
    /// strings' UTF-8 (read in place) hash as the same bytes in an array.
    @Test func everyKindOfCollectionHashesAsItsBytes() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 13 + 5) }
        var reversed = ContentHash(), mapped = ContentHash()
        for start in stride(from: 0, to: bytes.count, by: 37) {
            reversed.update(Array(bytes[start..<min(start + 37, bytes.count)].reversed()).reversed())
            mapped.update(bytes[start..<min(start + 37, bytes.count)].lazy.map { $0 })
        }
        #expect(reversed.finalizeHex() == ContentHash.hex(of: bytes))
        #expect(mapped.finalizeHex() == ContentHash.hex(of: bytes))
        let text = "taxonomy: n02084071<n01317541,n00015388\u{1F}Hund, chien, 犬"
        var fromString = ContentHash()
        fromString.update(text.utf8)
        #expect(fromString.finalizeHex() == ContentHash.hex(of: Array(text.utf8)))
    }

    @Test func smallChangesChangeTheHash() {
        var bytes = [UInt8](repeating: 0, count: 64)
        let base = ContentHash.hex(of: bytes)
        var seen: Set<String> = [base]
        for index in 0..<64 {
            bytes[index] = 1
            seen.insert(ContentHash.hex(of: bytes))
            bytes[index] = 0
        }
        #expect(seen.count == 65)
        #expect(ContentHash.hex(of: [0]) != ContentHash.hex(of: [0, 0]))
        #expect(base.count == 16)
    }

    @Test func fileHashEqualsBytesHash() throws {
        let directory = try TemporaryDirectory()
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 8)) }
        let url = directory.url.appendingPathComponent("f.bin")
        try Data(bytes).write(to: url)
        #expect(try ContentHash.hex(ofFileAt: url) == ContentHash.hex(of: bytes))
    }
}
