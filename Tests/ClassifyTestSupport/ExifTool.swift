import Foundation

/// exiftool, the reader the export is checked against: what it reads back is what photo tools see.
/// Tests that need it are skipped with a message where it is not installed
/// (Debian: libimage-exiftool-perl).
///
/// ```swift
/// let subjects = ExifTool.list(try ExifTool.xmpTags(path), "XMP-dc:Subject")
/// ```
public enum ExifTool {
    /// Where exiftool is, when installed.
    public static let path: String? = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether exiftool is installed.
    public static var isInstalled: Bool { path != nil }

    /// The XMP tags of a file as exiftool reads them (`-struct`: every list is a JSON array),
    /// keyed by group and name, e.g. `XMP-dc:Subject`.
    public static func xmpTags(_ file: String) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path!)
        process.arguments = ["-j", "-G1", "-a", "-struct", "-XMP:all", file]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let objects = try JSONSerialization.jsonObject(with: data) as? [[String: Any]], var tags = objects.first else {
            throw ExifToolError(message: "exiftool printed no JSON for \(file)")
        }
        tags.removeValue(forKey: "SourceFile")
        return tags
    }

    /// A string list tag (nil when absent).
    public static func list(_ tags: [String: Any], _ key: String) -> [String]? {
        if let list = tags[key] as? [Any] { return list.map { "\($0)" } }
        return tags[key].map { ["\($0)"] }
    }

    /// exiftool printed no JSON.
    public struct ExifToolError: Error { public var message: String }
}
