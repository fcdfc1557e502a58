/// A bounds-checked reader of TIFF-structured bytes (TIFF 6.0, section 2): the 8-byte header
/// ("II" or "MM", 42, offset of IFD0) and image file directories of 12-byte entries.
///
/// EXIF is this structure wherever it is carried (JPEG APP1, a HEIF `Exif` item, PNG eXIf, a
/// WebP EXIF chunk, a TIFF or TIFF-based raw file itself), so this is the one place that
/// reads it. Every offset and count is checked against the data: a damaged block yields nil
/// for what cannot be read, never a trap. Only the caller decides which directories to visit,
/// and ``ifd(at:)`` refuses to read a directory twice, so pointer loops end.
///
/// The bytes are borrowed: use it only inside the `withUnsafeBytes` scope that made them.
struct TIFFStructure {
    /// One directory entry; `valueOffset` is where its value bytes start in the block.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var valueOffset: Int
    }

    /// The entries of one directory by tag (the first of duplicated tags wins).
    struct Directory {
        var entries: [UInt16: Entry] = [:]
        subscript(tag: UInt16) -> Entry? { entries[tag] }
    }

    /// A directory may not hold more entries than this; real ones hold tens. Larger counts are
    /// damage (reading them would only walk over unrelated bytes).
    static let maximumEntryCount = 1000

    let bytes: UnsafeRawBufferPointer
    let bigEndian: Bool
    /// Where IFD0 starts.
    let firstDirectoryOffset: Int
    private var visitedDirectories: Set<Int> = []

    /// Reads the header; nil when the bytes do not start with a TIFF header. A leading
    /// "Exif\0\0" (the JPEG APP1 prefix, which some PNG and WebP writers keep) is skipped, and
    /// offsets are then relative to the header, as EXIF requires.
    init?(_ block: UnsafeRawBufferPointer) {
        var block = block
        if block.count >= 6, block.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
            block = UnsafeRawBufferPointer(rebasing: block.dropFirst(6))
        }
        guard block.count >= 8 else { return nil }
        switch (block[0], block[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        bytes = block
        // 42 is TIFF; Panasonic RW2 writes 0x55 and Olympus ORF "RO"/"SR" with the same layout.
        guard let magic = Self.uint16(block, at: 2, bigEndian: bigEndian), [42, 0x55, 0x4F52, 0x5352].contains(magic),
            let first = Self.uint32(block, at: 4, bigEndian: bigEndian)
        else { return nil }
        firstDirectoryOffset = Int(first)
    }

    /// The directory at `offset`, or nil when it lies outside the data or was read before (a
    /// loop). Entries that run past the end of the data are dropped (common in cut files).
    mutating func ifd(at offset: Int) -> Directory? {
        guard offset >= 8, let count = uint16(at: offset), !visitedDirectories.contains(offset) else { return nil }
        guard Int(count) <= Self.maximumEntryCount else { return nil }
        visitedDirectories.insert(offset)
        var directory = Directory()
        for index in 0..<Int(count) {
            let start = offset + 2 + index * 12
            guard let tag = uint16(at: start), let type = uint16(at: start + 2), let count = uint32(at: start + 4),
                let size = Self.elementSize(ofType: type)
            else { continue }
            let (byteCount, overflow) = Int(count).multipliedReportingOverflow(by: size)
            guard !overflow, byteCount <= bytes.count else { continue }
            let valueOffset: Int
            if byteCount <= 4 {
                valueOffset = start + 8
            } else {
                guard let pointer = uint32(at: start + 8) else { continue }
                valueOffset = Int(pointer)
            }
            guard valueOffset <= bytes.count - byteCount else { continue }
            if directory.entries[tag] == nil {
                directory.entries[tag] = Entry(tag: tag, type: type, count: Int(count), valueOffset: valueOffset)
            }
        }
        return directory
    }

    /// The directory a pointer entry (ExifIFD 0x8769, GPS 0x8825) of `directory` names.
    mutating func subdirectory(_ pointerTag: UInt16, of directory: Directory) -> Directory? {
        guard let entry = directory[pointerTag], let offset = unsignedIntegers(entry)?.first else { return nil }
        return ifd(at: Int(offset))
    }

    // MARK: Typed values

    /// An ASCII value up to its first NUL (UTF-8 accepted, as many cameras write it); nil for
    /// other types.
    func string(_ entry: Entry) -> String? {
        guard entry.type == TIFFType.ascii || entry.type == TIFFType.undefined || entry.type == TIFFType.byte
        else { return nil }
        let raw = bytes[entry.valueOffset..<entry.valueOffset + entry.count]
        return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The raw value bytes of a BYTE or UNDEFINED entry.
    func rawBytes(_ entry: Entry) -> UnsafeRawBufferPointer.SubSequence? {
        guard entry.type == TIFFType.byte || entry.type == TIFFType.undefined else { return nil }
        return bytes[entry.valueOffset..<entry.valueOffset + entry.count]
    }

    /// BYTE, SHORT or LONG values.
    func unsignedIntegers(_ entry: Entry) -> [UInt32]? {
        switch entry.type {
        case TIFFType.byte: return (0..<entry.count).map { UInt32(bytes[entry.valueOffset + $0]) }
        case TIFFType.short: return (0..<entry.count).compactMap { uint16(at: entry.valueOffset + $0 * 2).map(UInt32.init) }
        case TIFFType.long: return (0..<entry.count).compactMap { uint32(at: entry.valueOffset + $0 * 4) }
        default: return nil
        }
    }

    /// RATIONAL (or SRATIONAL) values as doubles; a zero denominator gives nil for that value,
    /// as the number it stands for is unknown.
    func rationals(_ entry: Entry) -> [Double?]? {
        guard entry.type == TIFFType.rational || entry.type == TIFFType.signedRational else { return nil }
        return (0..<entry.count).map { index in
            guard let numerator = uint32(at: entry.valueOffset + index * 8),
                let denominator = uint32(at: entry.valueOffset + index * 8 + 4), denominator != 0
            else { return nil }
            if entry.type == TIFFType.signedRational {
                return Double(Int32(bitPattern: numerator)) / Double(Int32(bitPattern: denominator))
            }
            return Double(numerator) / Double(denominator)
        }
    }

    // MARK: Integers

    func uint16(at offset: Int) -> UInt16? { Self.uint16(bytes, at: offset, bigEndian: bigEndian) }
    func uint32(at offset: Int) -> UInt32? { Self.uint32(bytes, at: offset, bigEndian: bigEndian) }

    private static func uint16(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let first = UInt16(bytes[offset]), second = UInt16(bytes[offset + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
    }

    private static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool) -> UInt32? {
        guard let first = uint16(bytes, at: offset, bigEndian: bigEndian),
            let second = uint16(bytes, at: offset + 2, bigEndian: bigEndian)
        else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }

    /// Bytes per value of the TIFF 6.0 field types (section 2, "Types"); nil for unknown ones,
    /// whose entries are skipped.
    private static func elementSize(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: return 2  // SHORT, SSHORT
        case 4, 9, 11, 13: return 4  // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12: return 8  // RATIONAL, SRATIONAL, DOUBLE
        default: return nil
        }
    }
}

/// The TIFF field types the metadata readers ask for by name.
enum TIFFType {
    static let byte: UInt16 = 1
    static let ascii: UInt16 = 2
    static let short: UInt16 = 3
    static let long: UInt16 = 4
    static let rational: UInt16 = 5
    static let undefined: UInt16 = 7
    static let signedRational: UInt16 = 10
}
