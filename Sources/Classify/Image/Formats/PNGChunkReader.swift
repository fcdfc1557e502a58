/// Walks the chunk list of a PNG file without decoding it.
enum PNGChunkReader {
    /// The payload of the eXIf chunk, if one appears before the image data. Per the PNG
    /// specification eXIf must precede IDAT; one after it is ignored, as decoders may.
    /// Every length is checked against the data, so a damaged file just yields nil.
    static func exifPayload(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var payload: [UInt8]?
        forEachChunk(in: bytes) { type, data in
            switch type {
            case "IDAT", "IEND": return false
            case "eXIf":
                payload = Array(data)
                return false
            default: return true
            }
        }
        return payload
    }

    /// The XMP packet of the first uncompressed iTXt chunk with keyword "XML:com.adobe.xmp"
    /// (XMP Specification Part 3, 1.1.5), wherever it is. A compressed one is skipped: XMP
    /// writers store it uncompressed so that tools can find it.
    static func xmpPacket(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        var packet: [UInt8]?
        forEachChunk(in: bytes) { type, data in
            guard type == "iTXt" else { return type != "IEND" }
            guard data.starts(with: keyword) else { return true }
            // Keyword\0, compression flag, method, language\0, translated keyword\0, text.
            let afterKeyword = data.dropFirst(keyword.count)
            guard afterKeyword.count >= 2, afterKeyword.first == 0 else { return true }
            let fields = afterKeyword.dropFirst(2)
            guard let languageEnd = fields.firstIndex(of: 0),
                let translatedEnd = fields[(languageEnd + 1)...].firstIndex(of: 0)
            else { return true }
            packet = Array(fields[(translatedEnd + 1)...])
            return false
        }
        return packet
    }

    /// Calls `body` with each chunk's type and data, in order, until it returns false or a
    /// length runs past the data.
    private static func forEachChunk(
        in bytes: UnsafeRawBufferPointer, _ body: (String, UnsafeRawBufferPointer.SubSequence) -> Bool
    ) {
        let signatureLength = 8, lengthAndTypeLength = 8, crcLength = 4
        var offset = signatureLength
        while bytes.count - offset >= lengthAndTypeLength {
            let length = Int(bigEndianUInt32(bytes, at: offset))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let dataStart = offset + lengthAndTypeLength
            guard length <= bytes.count - dataStart else { return }
            guard body(type, bytes[dataStart..<dataStart + length]) else { return }
            offset = dataStart + length + crcLength
        }
    }

    private static func bigEndianUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
