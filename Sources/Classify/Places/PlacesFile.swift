import Foundation

/// The layout of `places.bin` (Models/FORMAT.md, "Places"): a header, then column sections
/// that are read in place from the memory-mapped file. Every section's bounds and size are
/// checked once on load, with an error naming the section; string offsets and table indices
/// are checked on each read, so a damaged file gives empty names, never a trap.
struct PlacesFile: Sendable {
    static let magic = Array("CLSPLACE".utf8)
    static let version: UInt32 = 2

    /// The sections in file order.
    enum Section: Int, CaseIterable {
        case countries, admin1, timeZones, ids, latitudes, longitudes, populations, names, regions
        case gridRows, cells, nameRows, nameKeys, strings
    }

    let data: Data
    let placeCount: Int
    let countryCount: Int
    let admin1Count: Int
    let timeZoneCount: Int
    /// Grid cells holding at least one place (the rest are not stored).
    let cellCount: Int
    /// Places whose key is their ASCII name lowercased (the `nameRows` section).
    let nameRowCount: Int
    /// Keys stored as strings (the `nameKeys` section).
    let nameKeyCount: Int
    let cellsPerDegree: Int
    let gridWidth: Int
    let gridHeight: Int
    /// Byte offset of each section, by `Section.rawValue`.
    let offsets: [Int]
    /// Coordinates are stored as integers of 1/scale degrees, relative to their cell's corner.
    static let coordinateScale = 100_000.0
    static let headerSize = 8 + 4 + 7 * 4 + 3 * 4 + Section.allCases.count * 8

    init(data: Data, path: String) throws(PlacesFileError) {
        self.data = data
        func fail(_ reason: String) -> PlacesFileError { .invalid(path: path, reason: reason) }
        let headerSize = Self.headerSize
        guard data.count >= headerSize, data.prefix(8).elementsEqual(Self.magic) else {
            throw fail("it does not start with the places magic")
        }
        let word = { (index: Int) -> Int in Int(Self.uint32(data, at: index)) }
        guard UInt32(word(8)) == Self.version else { throw fail("format version \(word(8)), this build reads \(Self.version)") }
        placeCount = word(12)
        countryCount = word(16)
        admin1Count = word(20)
        timeZoneCount = word(24)
        cellCount = word(28)
        nameRowCount = word(32)
        nameKeyCount = word(36)
        cellsPerDegree = word(40)
        gridWidth = word(44)
        gridHeight = word(48)
        guard cellsPerDegree > 0, gridWidth == 360 * cellsPerDegree, gridHeight == 180 * cellsPerDegree else {
            throw fail("a grid of \(gridWidth) x \(gridHeight) cells does not match \(cellsPerDegree) cells per degree")
        }
        guard Int(PlacesFile.coordinateScale) / cellsPerDegree <= Int(UInt16.max) else {
            throw fail("cells of 1/\(cellsPerDegree) degree are too wide for 16-bit coordinates")
        }
        let rowSizes: [Section: (count: Int, size: Int)] = [
            .countries: (countryCount, 8), .admin1: (admin1Count, 12), .timeZones: (timeZoneCount, 4),
            .ids: (placeCount, 3), .latitudes: (placeCount, 2), .longitudes: (placeCount, 2),
            .populations: (placeCount, 2), .names: (placeCount, 3), .regions: (placeCount, 3),
            .gridRows: (gridHeight + 1, 4), .cells: (cellCount, 8), .nameRows: (nameRowCount, 3), .nameKeys: (nameKeyCount, 6),
        ]
        let table = 8 + 4 + 7 * 4 + 3 * 4
        var offsets: [Int] = []
        for section in Section.allCases {
            let offset = word(table + section.rawValue * 8), length = word(table + 4 + section.rawValue * 8)
            guard offset >= headerSize, offset % 4 == 0, length <= data.count - offset else {
                throw fail("section \(section) lies outside the file")
            }
            if let rows = rowSizes[section], rows.count * rows.size != length {
                throw fail("section \(section) holds \(length) bytes, expected \(rows.count) x \(rows.size)")
            }
            offsets.append(offset)
        }
        self.offsets = offsets
        let stringsLength = word(table + 4 + Section.strings.rawValue * 8)
        guard stringsLength > 0, data[offsets[Section.strings.rawValue] + stringsLength - 1] == 0 else {
            throw fail("the string pool does not end with a NUL")
        }
        // The grid must cover the places exactly, in order, so lookups stay inside the columns:
        // rows point at ascending runs of cells, a row's cells have ascending columns, and the
        // cells' first places ascend from 0.
        let rows = offsets[Section.gridRows.rawValue], cells = offsets[Section.cells.rawValue]
        guard Self.uint32(data, at: rows) == 0, word(rows + gridHeight * 4) == cellCount else {
            throw fail("the grid rows do not cover every cell")
        }
        var previousPlace = -1
        for row in 0..<gridHeight {
            let start = word(rows + row * 4), end = word(rows + row * 4 + 4)
            guard start <= end, end <= cellCount else { throw fail("the grid rows are not ascending") }
            var previousColumn = -1
            for cell in start..<end {
                let column = Int(data.withUnsafeBytes { $0.littleEndianUInt16(cells + cell * 8) })
                let first = word(cells + cell * 8 + 4)
                guard column > previousColumn, column < gridWidth, first > previousPlace, first < placeCount else {
                    throw fail("the grid cells are not ascending")
                }
                previousColumn = column
                previousPlace = first
            }
        }
        guard cellCount == 0 || word(cells + 4) == 0 else { throw fail("the grid does not cover every place") }
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

    /// A stored population: a 12-bit mantissa shifted left by a 4-bit exponent (rounded down
    /// when written: exact below 4096, within 0.05% above).
    @inline(__always) static func population(_ stored: UInt16) -> Int {
        Int(stored & 0x0FFF) << Int(stored >> 12)
    }

    /// The first place of the `cell`-th stored cell, or the place count past the last.
    @inline(__always) func firstPlace(ofCell cell: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        cell < cellCount ? Int(bytes.littleEndianUInt32(offset(.cells) + cell * 8 + 4)) : placeCount
    }

    /// The stored cells of grid row `row` (a range of cell numbers).
    @inline(__always) func cells(inRow row: Int, in bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let rows = offset(.gridRows)
        return Int(bytes.littleEndianUInt32(rows + row * 4))..<Int(bytes.littleEndianUInt32(rows + row * 4 + 4))
    }

    /// The grid column of the `cell`-th stored cell.
    @inline(__always) func column(ofCell cell: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        Int(bytes.littleEndianUInt16(offset(.cells) + cell * 8))
    }

    /// The south-west corner of a grid cell, in 1/scale degrees.
    @inline(__always) func origin(row: Int, column: Int) -> (latitude: Int32, longitude: Int32) {
        let unit = Int32(Self.coordinateScale) / Int32(cellsPerDegree)
        return (Int32(row) * unit - 90 * Int32(Self.coordinateScale), Int32(column) * unit - 180 * Int32(Self.coordinateScale))
    }

    /// The grid row and column of the cell holding place row `index`.
    func gridPosition(ofPlace index: Int, in bytes: UnsafeRawBufferPointer) -> (row: Int, column: Int) {
        // The last stored cell whose first place is at or before `index`...
        var low = 0, high = cellCount
        while low < high {
            let middle = (low + high) / 2
            if firstPlace(ofCell: middle, in: bytes) <= index { low = middle + 1 } else { high = middle }
        }
        let cell = max(0, low - 1)
        // ...and the grid row whose run of cells holds it.
        var rowLow = 0, rowHigh = gridHeight
        while rowLow < rowHigh {
            let middle = (rowLow + rowHigh) / 2
            if cells(inRow: middle, in: bytes).upperBound <= cell { rowLow = middle + 1 } else { rowHigh = middle }
        }
        return (min(rowLow, gridHeight - 1), cellCount == 0 ? 0 : column(ofCell: cell, in: bytes))
    }

    /// Latitude and longitude of place row `index`, in 1/scale degrees.
    func coordinates(ofPlace index: Int, in bytes: UnsafeRawBufferPointer) -> (latitude: Int32, longitude: Int32) {
        let position = gridPosition(ofPlace: index, in: bytes)
        let corner = origin(row: position.row, column: position.column)
        return (corner.latitude + Int32(bytes.littleEndianUInt16(offset(.latitudes) + index * 2)),
                corner.longitude + Int32(bytes.littleEndianUInt16(offset(.longitudes) + index * 2)))
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

    @inline(__always) func littleEndianUInt24(_ offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8 | Int(self[offset + 2]) << 16
    }

    @inline(__always) func littleEndianUInt16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}
