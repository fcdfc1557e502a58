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
            var object: [String: Any] = [
                "path": record.path, "size": record.size,
                "modified": stamp.format(record.modificationTime), "indexed": stamp.format(record.indexedAt),
                "labels": record.labels.map { label -> [String: Any] in
                    var entry: [String: Any] = [
                        "identifier": label.identifier, "name": label.displayName,
                        "confidence": (label.confidence * 1e4).rounded() / 1e4,
                        "paths": label.hierarchy.map { $0.joined(separator: "|") },
                    ]
                    if label.isAdded { entry["added"] = true }
                    if label.isUserLabel { entry["userLabel"] = true }
                    return entry
                },
            ]
            if let width = record.width, let height = record.height { object["width"] = width; object["height"] = height }
            if let model = record.model { object["model"] = model.description }
            if let hash = record.contentHash { object["contentHash"] = hash }
            if !record.removedLabels.isEmpty { object["removed"] = record.removedLabels }
            if let stage = record.failureStage { object["error"] = ["stage": stage, "reason": record.failureReason ?? ""] }
            if let faces = record.faces {
                // As `classify-tool faces` and `show` write them: pixels to 0.1, confidences to 1e-4.
                object["faceCount"] = faces.count
                object["faces"] = faces.map { face -> [String: Any] in
                    ["x": (face.x * 10).rounded() / 10, "y": (face.y * 10).rounded() / 10,
                     "width": (face.width * 10).rounded() / 10, "height": (face.height * 10).rounded() / 10,
                     "confidence": (face.confidence * 1e4).rounded() / 1e4]
                }
            }
            // A path that is not UTF-8 (see RawPath) is written readably, its exact bytes in "pathBytes".
            let data = (try? JSONSerialization.data(
                withJSONObject: RawPath.portableJSONObject(object), options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    private static func confidence(_ value: Double) -> String { String(format: "%.4f", value) }

    /// RFC 4180: quote fields holding a comma, quote or line break; double inner quotes.
    static func csvField(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
