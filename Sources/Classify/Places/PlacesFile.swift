import Foundation

/// The layout of `places.bin` (Models/FORMAT.md, "Places"): a header, then column sections
/// that are read in place from the memory-mapped file. Every section's bounds and size are
/// checked once on load, with an error naming the section; string offsets and table indices
/// are checked on each read, so a damaged file gives empty names, never a trap.
struct PlacesFile: Sendable {
    static let magic = Array("CLSPLACE".utf8)
    static let version: UInt32 = 1

    /// The sections in file order, with the bytes each holds per row (nil: variable).
    enum Section: Int, CaseIterable {
        case countries, admin1, timeZones, ids, latitudes, longitudes, populations, names, admin1Indices
        case timeZoneIndices, countryIndices, cellStarts, nameKeys, strings
    }

    let data: Data
    let placeCount: Int
    let countryCount: Int
    let admin1Count: Int
    let timeZoneCount: Int
    let nameKeyCount: Int
    let cellsPerDegree: Int
    let gridWidth: Int
    let gridHeight: Int
    /// Byte offset of each section, by `Section.rawValue`.
    let offsets: [Int]
    /// Set in a name key's string offset when the key is the (ASCII) name there, lowercased.
    static let asciiLowercasedName: UInt32 = 0x8000_0000
    /// Coordinates are stored as integers of 1/scale degrees.
    static let coordinateScale = 100_000.0

    init(data: Data, path: String) throws(PlacesFileError) {
        self.data = data
        func fail(_ reason: String) -> PlacesFileError { .invalid(path: path, reason: reason) }
        let headerSize = 8 + 4 + 5 * 4 + 3 * 4 + Section.allCases.count * 8
        guard data.count >= headerSize, data.prefix(8).elementsEqual(Self.magic) else {
            throw fail("it does not start with the places magic")
        }
        let word = { (index: Int) -> Int in Int(Self.uint32(data, at: index)) }
        guard UInt32(word(8)) == Self.version else { throw fail("format version \(word(8)), this build reads \(Self.version)") }
        placeCount = word(12)
        countryCount = word(16)
        admin1Count = word(20)
        timeZoneCount = word(24)
        nameKeyCount = word(28)
        cellsPerDegree = word(32)
        gridWidth = word(36)
        gridHeight = word(40)
        guard cellsPerDegree > 0, gridWidth == 360 * cellsPerDegree, gridHeight == 180 * cellsPerDegree else {
            throw fail("a grid of \(gridWidth) x \(gridHeight) cells does not match \(cellsPerDegree) cells per degree")
        }
        let rowSizes: [Section: (count: Int, size: Int)] = [
            .countries: (countryCount, 8), .admin1: (admin1Count, 12), .timeZones: (timeZoneCount, 4),
            .ids: (placeCount, 4), .latitudes: (placeCount, 4), .longitudes: (placeCount, 4),
            .populations: (placeCount, 4), .names: (placeCount, 4), .admin1Indices: (placeCount, 2),
            .timeZoneIndices: (placeCount, 2), .countryIndices: (placeCount, 1),
            .cellStarts: (gridWidth * gridHeight + 1, 4), .nameKeys: (nameKeyCount, 8),
        ]
        var offsets: [Int] = []
        for section in Section.allCases {
            let offset = word(44 + section.rawValue * 8), length = word(48 + section.rawValue * 8)
            guard offset >= headerSize, offset % 4 == 0, length <= data.count - offset else {
                throw fail("section \(section) lies outside the file")
            }
            if let rows = rowSizes[section], rows.count * rows.size != length {
                throw fail("section \(section) holds \(length) bytes, expected \(rows.count) x \(rows.size)")
            }
            offsets.append(offset)
        }
        self.offsets = offsets
        let stringsLength = word(48 + Section.strings.rawValue * 8)
        guard stringsLength > 0, data[offsets[Section.strings.rawValue] + stringsLength - 1] == 0 else {
            throw fail("the string pool does not end with a NUL")
        }
        // The grid must cover the places exactly, in order, so lookups stay inside the columns.
        let cells = offsets[Section.cellStarts.rawValue]
        var previous = 0
        for cell in 0...(gridWidth * gridHeight) {
            let start = Int(Self.uint32(data, at: cells + cell * 4))
            guard start >= previous, start <= placeCount else { throw fail("cell starts are not ascending") }
            previous = start
        }
        guard previous == placeCount, Self.uint32(data, at: cells) == 0 else { throw fail("the grid does not cover every place") }
    }

    func offset(_ section: Section) -> Int { offsets[section.rawValue] }

    /// The NUL-terminated string at `offset` in the string pool ("" when out of range).
    func string(at offset: Int, in bytes: UnsafeRawBufferPointer) -> String {
        let pool = self.offset(.strings)
        let start = pool + offset
        guard offset >= 0, start < bytes.count else { return "" }
        var end = start
        while end < bytes.count, bytes[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    static func uint32(_ data: Data, at offset: Int) -> UInt32 {
        data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always) func littleEndianUInt32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func littleEndianInt32(_ offset: Int) -> Int32 {
        Int32(littleEndian: loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }

    @inline(__always) func littleEndianUInt16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}
