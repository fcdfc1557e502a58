/// Walks the chunk list of a PNG file without decoding it.
enum PNGChunkReader {
    /// The payload of the eXIf chunk, if one appears before the image data. Per the PNG
    /// specification eXIf must precede IDAT; one after it is ignored, as decoders may.
    /// Every length is checked against the data, so a damaged file just yields nil.
    static func exifPayload(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let signatureLength = 8, lengthAndTypeLength = 8, crcLength = 4
        var offset = signatureLength
        while bytes.count - offset >= lengthAndTypeLength {
            let length = Int(bigEndianUInt32(bytes, at: offset))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let dataStart = offset + lengthAndTypeLength
            guard length <= bytes.count - dataStart else { return nil }
            switch type {
            case "IDAT", "IEND": return nil
            case "eXIf": return Array(bytes[dataStart..<dataStart + length])
            default: offset = dataStart + length + crcLength
            }
        }
        return nil
    }

    private static func bigEndianUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
