/// Reads the orientation tag from EXIF data. Every read is bounds-checked; anything
/// malformed (bad byte order, offsets outside the data, unknown values) yields `.identity`,
/// because a wrong-but-upright guess is better than refusing a photo over its metadata.
enum ExifOrientationReader {
    private static let orientationTag: UInt16 = 0x0112
    private static let shortType: UInt16 = 3
    private static let longType: UInt16 = 4
    private static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// The orientation stored in IFD0 of `exif`: TIFF-structured bytes, optionally still
    /// preceded by the "Exif\0\0" APP1 prefix (some PNG writers keep it in eXIf).
    ///
    /// Only IFD0 is read, so IFD chains that loop back on themselves are never followed.
    static func orientation(in exif: [UInt8]) -> ImageOrientation {
        let tiff = exif.starts(with: exifPrefix) ? Array(exif.dropFirst(exifPrefix.count)) : exif
        return orientation(inTIFF: tiff) ?? .identity
    }

    private static func orientation(inTIFF tiff: [UInt8]) -> ImageOrientation? {
        let reader: TIFFReader
        switch (tiff.first, tiff.dropFirst().first) {
        case (0x49, 0x49): reader = TIFFReader(bytes: tiff, bigEndian: false)  // "II"
        case (0x4D, 0x4D): reader = TIFFReader(bytes: tiff, bigEndian: true)  // "MM"
        default: return nil
        }
        guard reader.uint16(at: 2) == 42, let ifdOffset = reader.uint32(at: 4),
            let entryCount = reader.uint16(at: Int(ifdOffset))
        else { return nil }
        let entriesStart = Int(ifdOffset) + 2
        for index in 0..<Int(entryCount) {
            let entry = entriesStart + index * 12
            // A count larger than the data is common in damaged files; stop at the end.
            guard let tag = reader.uint16(at: entry), let type = reader.uint16(at: entry + 2)
            else { return nil }
            guard tag == orientationTag else { continue }
            // The value is stored inline in the entry's 4-byte value field, left-justified.
            let value: Int?
            switch type {
            case shortType: value = reader.uint16(at: entry + 8).map(Int.init)
            case longType: value = reader.uint32(at: entry + 8).map(Int.init)
            default: value = nil
            }
            return value.flatMap(ImageOrientation.init(rawValue:))
        }
        return nil
    }
}

/// Bounds-checked integer reads from a TIFF structure in either byte order.
private struct TIFFReader {
    let bytes: [UInt8]
    let bigEndian: Bool

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let first = UInt16(bytes[offset]), second = UInt16(bytes[offset + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return bigEndian
            ? UInt32(first) << 16 | UInt32(second)
            : UInt32(second) << 16 | UInt32(first)
    }
}
