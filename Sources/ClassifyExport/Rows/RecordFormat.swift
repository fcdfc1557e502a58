import ClassifySupport
import Foundation
import TagIndex

/// Row formats for ``ExportRecord``s: CSV (RFC 4180, for spreadsheets) and JSON Lines (one
/// object a line, for scripts). Each record is formatted on its own, so an export streams.
///
/// CSV columns: `path,size,width,height,modified,indexed,model,content_hash,labels,confidences,
/// added,removed,error_stage,error_reason,faces`; `labels` and `confidences` hold the kept labels'
/// names and confidences in the same order, separated by `; `; `faces` is the number of stored
/// faces, empty where faces were not looked for. JSON Lines adds `faceCount` and `faces` (boxes in
/// pixels of the upright image, top-left origin, and confidences, best first) where faces were
/// looked for. Paths are in `RawPath` form: a CSV line
/// is meant to be written as `RawPath.bytes(of:)`, so a name that is not UTF-8 keeps its bytes.
///
/// ```swift
/// print(RecordFormat.csv.header ?? "")
/// try index.exportRecords(filter: nil) { print(RecordFormat.csv.line(for: $0)) }
/// ```
public enum RecordFormat: String, Sendable, CaseIterable {
    /// Comma-separated values with a header line.
    case csv
    /// One JSON object per line.
    case jsonl

    /// The header line, for formats that have one.
    public var header: String? {
        switch self {
        case .csv:
            "path,size,width,height,modified,indexed,model,content_hash,labels,confidences,added,removed,error_stage,error_reason,faces"
        case .jsonl: nil
        }
    }

    /// One record as one line (without the line break).
    ///
    /// ```swift
    /// let line = RecordFormat.jsonl.line(for: record)
    /// ```
    public func line(for record: ExportRecord) -> String {
        let stamp = Date.ISO8601FormatStyle()
        switch self {
        case .csv:
            let fields: [String] = [
                record.path, String(record.size), record.width.map(String.init) ?? "", record.height.map(String.init) ?? "",
                stamp.format(record.modificationTime), stamp.format(record.indexedAt),
                record.model?.description ?? "", record.contentHash ?? "",
                record.labels.map(\.displayName).joined(separator: "; "),
                record.labels.map { Self.confidence($0.confidence) }.joined(separator: "; "),
                record.labels.filter(\.isAdded).map(\.displayName).joined(separator: "; "),
                record.removedLabels.joined(separator: "; "),
                record.failureStage ?? "", record.failureReason ?? "",
                record.faces.map { String($0.count) } ?? "",
            ]
            return fields.map(Self.csvField).joined(separator: ",")
        case .jsonl:
            // A path that is not UTF-8 (see RawPath) is written readably, its exact bytes in "pathBytes".
            return String(decoding: (try? JSONOutput.encode(ExportRecordOutput(record))) ?? Data(), as: UTF8.self)
        }
    }

    private static func confidence(_ value: Double) -> String { String(format: "%.4f", value) }

    /// RFC 4180: quote fields holding a comma, quote or line break; double inner quotes.
    static func csvField(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
