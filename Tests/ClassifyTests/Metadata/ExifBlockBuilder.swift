/// Writes small TIFF-structured EXIF blocks in either byte order, with IFD0 and optional EXIF
/// and GPS IFDs, so each reader rule can be tested on exactly the bytes it is about.
struct ExifBlockBuilder {
    enum Value {
        case ascii(String)
        case byte([UInt8])
        case short([UInt16])
        case long([UInt32])
        case rational([(UInt32, UInt32)])
        case undefined([UInt8])
        /// Any type and count over the given value bytes (for wrong types and lying counts).
        case raw(type: UInt16, count: UInt32, bytes: [UInt8])
    }

    typealias Entries = [(tag: UInt16, value: Value)]

    var bigEndian = false
    var ifd0: Entries = []
    var exif: Entries?
    var gps: Entries?

    func bytes() -> [UInt8] {
        var directories = [ifd0]
        if exif != nil { directories[0].append((0x8769, .long([0]))) }
        if gps != nil { directories[0].append((0x8825, .long([0]))) }
        directories[0].sort { $0.tag < $1.tag }
        if let exif { directories.append(exif) }
        if let gps { directories.append(gps) }
        // Directories one after the other from offset 8, then the values that do not fit inline.
        var offsets: [Int] = []
        var next = 8
        for directory in directories {
            offsets.append(next)
            next += 2 + 12 * directory.count + 4
        }
        var pointerValues: [UInt16: UInt32] = [:]
        if exif != nil { pointerValues[0x8769] = UInt32(offsets[1]) }
        if gps != nil { pointerValues[0x8825] = UInt32(offsets[exif == nil ? 1 : 2]) }

        var head = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0] as [UInt8]
        var data: [UInt8] = []
        let dataStart = next
        for (index, directory) in directories.enumerated() {
            head += u16(UInt16(directory.count))
            for (tag, value) in directory {
                var (type, count, valueBytes) = encode(value)
                if index == 0, let pointer = pointerValues[tag] { valueBytes = u32(pointer) }
                head += u16(tag) + u16(type) + u32(count)
                if valueBytes.count <= 4 {
                    head += valueBytes + [UInt8](repeating: 0, count: 4 - valueBytes.count)
                } else {
                    head += u32(UInt32(dataStart + data.count))
                    data += valueBytes
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            head += u32(0)
        }
        return head + data
    }

    private func encode(_ value: Value) -> (UInt16, UInt32, [UInt8]) {
        switch value {
        case .ascii(let text):
            let bytes = Array(text.utf8) + [0]
            return (2, UInt32(bytes.count), bytes)
        case .byte(let bytes): return (1, UInt32(bytes.count), bytes)
        case .undefined(let bytes): return (7, UInt32(bytes.count), bytes)
        case .short(let values): return (3, UInt32(values.count), values.flatMap(u16))
        case .long(let values): return (4, UInt32(values.count), values.flatMap(u32))
        case .rational(let values): return (5, UInt32(values.count), values.flatMap { u32($0.0) + u32($0.1) })
        case .raw(let type, let count, let bytes): return (type, count, bytes)
        }
    }

    func u16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    func u32(_ value: UInt32) -> [UInt8] {
        let high = u16(UInt16(value >> 16)), low = u16(UInt16(value & 0xFFFF))
        return bigEndian ? high + low : low + high
    }

    /// Degrees, minutes and hundredths of seconds as EXIF GPS rationals.
    static func angle(_ degrees: Double) -> Value {
        let whole = UInt32(degrees), minutes = UInt32((degrees - Double(whole)) * 60)
        let seconds = ((degrees - Double(whole)) * 60 - Double(minutes)) * 60
        let hundredths = UInt32((seconds * 100).rounded())
        let parts: [(UInt32, UInt32)] = [(whole, 1), (minutes, 1), (hundredths, 100)]
        return .rational(parts)
    }
}
