import ClassifySupport
import Foundation

/// The one JSON format of everything the index answers, written by `classify-tool ... --format
/// json` and by the gallery's `/api/` from the same Codable types (``SearchOutput``,
/// ``ImageOutput``, ``ScoredImageOutput``, ``DuplicateGroupOutput``, ``StatsOutput``,
/// ``LabelOutput``, ``CorrectionOutput``): keys sorted, slashes as they are, scores and
/// confidences to 4 decimals, dates in ISO 8601 (UTC), and a path whose name is not UTF-8 shown
/// as readable text in `path` with its exact bytes in base64 in `pathBytes`.
///
/// Usage: `let data = try JSONOutput.encode(SearchOutput(page: page, query: text, labels: labels))`
public enum JSONOutput {
    /// `value` as one line of JSON.
    ///
    /// Usage: `print(String(decoding: try JSONOutput.encode(output), as: UTF8.self))`
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try RawPath.portableJSON(encoder.encode(value))
    }

    /// `value` rounded to 4 decimals, as scores and confidences are written.
    ///
    /// Usage: `JSONOutput.rounded(0.123456) == 0.1235`
    public static func rounded(_ value: Double, decimals: Int = 4) -> Double {
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    /// A date as written (ISO 8601, UTC, whole seconds).
    ///
    /// Usage: `JSONOutput.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z"`
    public static func timestamp(_ date: Date) -> String { date.formatted(.iso8601) }
}

/// The gallery's links of one image (absent from the command line's output).
///
/// Usage: `ImageLinks(id: 42, thumbnail: "/thumbnails/42?v=3")`
public struct ImageLinks: Sendable, Hashable {
    /// The image's id in the index.
    public var id: Int64
    /// The gallery page of the image.
    public var url: String
    /// The thumbnail's URL.
    public var thumbnail: String

    /// Usage: `ImageLinks(id: hit.imageID, thumbnail: thumbnailURL)`
    public init(id: Int64, thumbnail: String) {
        self.id = id
        url = "/images/\(id)"
        self.thumbnail = thumbnail
    }
}
