import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File paths as the file system gives them, bytes that need not be UTF-8, carried in a `String`
/// without loss.
///
/// On Linux a name is any bytes but `/` and NUL (`caf\xE9.jpg` from an old FAT disk, a name with a
/// newline); a Swift `String` holds only Unicode. A path is read as UTF-8, and every byte that is
/// not part of valid UTF-8 becomes one scalar of a reserved range at the very end of Unicode: byte
/// `b` (0x80...0xFF) is U+10FF00 + `b`, that is U+10FF80...U+10FFFF (private use, plane 16). A name
/// that really contains one of those scalars has its four bytes escaped the same way, so the
/// mapping is one-to-one: `RawPath.bytes(of: RawPath.string(fromBytes: b)) == b` for all bytes.
/// A valid UTF-8 path (nearly all of them) is its own string, so text written before, like the
/// paths in an index database, reads the same.
///
/// Where a path leaves the program it turns back into bytes: system calls take
/// ``withCString(_:_:)``, output meant for scripts takes ``bytes(of:)``, JSON takes
/// ``portableJSON(_:)`` (readable text plus the exact bytes in base64), and a person reads
/// ``displayed(_:)``.
///
/// ```swift
/// let path = RawPath.string(fromBytes: Array("/photos/caf".utf8) + [0xE9] + Array(".jpg".utf8))
/// let exists = RawPath.withCString(path) { access($0, F_OK) == 0 }
/// print(RawPath.displayed(path))          // "/photos/caf\u{FFFD}.jpg"
/// ```
public enum RawPath {
    /// The scalar standing for byte `b` is `escapeBase + b`.
    static let escapeBase: UInt32 = 0x10FF00
    /// The first escape scalar (the one for byte 0x80).
    static let firstEscape: UInt32 = escapeBase + 0x80
    /// Every escape scalar's UTF-8 starts with F4, which valid UTF-8 uses only for U+100000 and up:
    /// text without this byte needs no work.
    private static let escapeLeadByte: UInt8 = 0xF4

    /// The path string for `bytes` (no NUL in them), lossless whatever the bytes are.
    ///
    /// ```swift
    /// let name = RawPath.string(fromBytes: [0x63, 0x61, 0x66, 0xE9])   // "caf" + U+10FFE9
    /// ```
    public static func string(fromBytes bytes: some Collection<UInt8>) -> String {
        if !bytes.contains(escapeLeadByte), let text = String(validating: bytes, as: UTF8.self) { return text }
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        func escape(_ byte: UInt8) { scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!) }
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            guard length > 0 else {
                // Escaping just this byte is lossless; the bytes after it are looked at afresh.
                escape(bytes[index])
                index += 1
                continue
            }
            var value = length == 1 ? UInt32(bytes[index]) : UInt32(bytes[index]) & (0xFF >> (length + 1))
            for next in bytes[(index + 1)..<(index + length)] { value = value << 6 | UInt32(next & 0x3F) }
            if value >= firstEscape {
                bytes[index..<(index + length)].forEach(escape)
            } else {
                scalars.append(Unicode.Scalar(value)!)
            }
            index += length
        }
        return String(scalars)
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    /// The bytes `path` stands for (see ``string(fromBytes:)``).
    ///
    /// ```swift
    /// FileHandle.standardOutput.write(Data(RawPath.bytes(of: path) + [0]))
    /// ```
    public static func bytes(of path: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        guard path.utf8.contains(escapeLeadByte) else {
            bytes.append(contentsOf: path.utf8)
            return bytes
        }
        for scalar in path.unicodeScalars {
            if scalar.value >= firstEscape {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        return bytes
    }

    /// Calls `body` with `path` as the NUL-terminated bytes a system call takes.
    ///
    /// ```swift
    /// let fd = RawPath.withCString(path) { open($0, O_RDONLY) }
    /// ```
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard path.utf8.contains(escapeLeadByte) else { return try path.withCString(body) }
        return try (bytes(of: path) + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// True when `path` names something (following links), as `stat` sees it.
    ///
    /// ```swift
    /// if !RawPath.exists(row.path) { /* moved or deleted */ }
    /// ```
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return withCString(path) { stat($0, &info) } == 0
    }

    /// `path` for a person to read: bytes that are not UTF-8 show as U+FFFD. Not a path any more
    /// (two names can look the same); for pages and messages only.
    ///
    /// ```swift
    /// let caption = RawPath.displayed(hit.path)
    /// ```
    public static func displayed(_ path: String) -> String {
        guard path.utf8.contains(escapeLeadByte) else { return path }
        return String(decoding: bytes(of: path), as: UTF8.self)
    }

    /// JSON from `JSONSerialization` or `JSONEncoder` made safe for every JSON reader: each string
    /// value holding a path whose name is not UTF-8 becomes its ``displayed(_:)`` text, and a
    /// sibling key `<key>Bytes` holds the exact bytes in base64 (so `"path"` gets `"pathBytes"`).
    /// A reader takes `pathBytes` when present, else `path`: in Python,
    /// `base64.b64decode(r["pathBytes"]) if "pathBytes" in r else os.fsencode(r["path"])` reaches
    /// the file. JSON without such paths (nearly all) is returned as it is. The text is rewritten
    /// with sorted keys and unescaped slashes, as the callers write it.
    ///
    /// ```swift
    /// let portable = try RawPath.portableJSON(JSONSerialization.data(withJSONObject: object))
    /// ```
    public static func portableJSON(_ data: Data) throws -> Data {
        guard data.contains(escapeLeadByte) else { return data }
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        return try JSONSerialization.data(withJSONObject: portableJSONObject(object), options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    /// The object tree of ``portableJSON(_:)``: dictionaries get `<key>Bytes` beside string values
    /// that hold escaped bytes; a string elsewhere (in an array, at the top) is only displayed.
    ///
    /// ```swift
    /// let safe = RawPath.portableJSONObject(["path": path])
    /// ```
    public static func portableJSONObject(_ value: Any) -> Any {
        switch value {
        case let dictionary as [String: Any]:
            var result: [String: Any] = [:]
            for (key, value) in dictionary {
                if let text = value as? String, text.utf8.contains(escapeLeadByte) {
                    result[key] = displayed(text)
                    result[key + "Bytes"] = Data(bytes(of: text)).base64EncodedString()
                } else {
                    result[key] = portableJSONObject(value)
                }
            }
            return result
        case let array as [Any]:
            return array.map(portableJSONObject)
        case let text as String:
            return displayed(text)
        default:
            return value
        }
    }
}
