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
