import Foundation

/// A JSON file of the model directory that names its format and format version
/// (`taxonomy.json`, `calibration.json`, `vocabulary.json`; see `Models/FORMAT.md`).
protocol VersionedModelFile: Decodable {
    var format: String { get }
    var formatVersion: Int { get }
}

/// Reads the versioned JSON files of a model directory with the same errors for each: unreadable,
/// malformed JSON, another format, or a format version this library does not read.
enum ModelJSONFile {
    static func read<Contents: VersionedModelFile>(
        _ type: Contents.Type, from url: URL, format: String, supportedVersion: Int
    ) throws(ModelLoadingError) -> Contents {
        let file = url.lastPathComponent
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw .malformed(file: file, reason: "\(error)")
        } catch {
            throw .unreadable(file: file, reason: (error as NSError).localizedDescription)
        }
        guard contents.format == format else { throw .malformed(file: file, reason: "format is '\(contents.format)'") }
        guard contents.formatVersion == supportedVersion else {
            throw .unsupportedFormat(file: file, found: contents.formatVersion, supported: supportedVersion)
        }
        return contents
    }
}
