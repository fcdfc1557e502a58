/// Minimal EXIF payloads for tests: a TIFF structure holding only IFD0 with the orientation tag.
///
/// ```swift
/// let jpeg = try TestJPEG.encode(pixels, width: 4, height: 2, app1: TestEXIF.jpegAPP1(TestEXIF.tiff(orientation: 6)))
/// ```
public enum TestEXIF {
    /// The TIFF structure (byte order mark, IFD0 with one SHORT entry, no next IFD).
    public static func tiff(orientation: UInt16, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let high = u16(UInt16(value >> 16)), low = u16(UInt16(value & 0xFFFF))
            return bigEndian ? high + low : low + high
        }
        let byteOrder: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        return byteOrder + u16(42) + u32(8)  // header, IFD0 right after it
            + u16(1)  // one entry
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)  // SHORT, inline value
            + u32(0)  // no next IFD
    }

    /// The JPEG APP1 payload carrying `tiff`.
    public static func jpegAPP1(_ tiff: [UInt8]) -> [UInt8] {
        Array("Exif".utf8) + [0, 0] + tiff
    }
}
