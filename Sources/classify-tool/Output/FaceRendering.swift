import Classify
import ClassifySupport
import Foundation

/// Renders the `faces` command's rows: one per file, faces in pixels of the upright image with a
/// top-left origin; a failed file is one row with the stage and reason, as `classify` prints.
///
/// Usage: `Terminal.out(FaceRenderer(format: .jsonl).render(path: path, result: result, isFirst: true))`
struct FaceRenderer {
    enum Format: String, CaseIterable { case table, json, jsonl }

    var format: Format

    var header: String? { format == .json ? "[" : nil }
    var footer: String? { format == .json ? "\n]" : nil }

    func render(path: String, result: Result<FaceDetectionResult, ClassificationError>, isFirst: Bool) -> String {
        switch format {
        case .table: return table(path: path, result: result)
        case .jsonl: return json(path: path, result: result)
        case .json: return (isFirst ? "  " : ",\n  ") + json(path: path, result: result)
        }
    }

    static func rounded(_ value: Double, _ digits: Double = 100) -> Double { (value * digits).rounded() / digits }

    func jsonObject(path: String, result: Result<FaceDetectionResult, ClassificationError>) -> [String: Any] {
        switch result {
        case .success(let result):
            return [
                "path": path, "width": result.width, "height": result.height,
                "faces": result.faces.map { face -> [String: Any] in
                    let box = face.pixelBoundingBox
                    return [
                        "x": Self.rounded(box.x), "y": Self.rounded(box.y),
                        "width": Self.rounded(box.width), "height": Self.rounded(box.height),
                        "confidence": Self.rounded(Double(face.confidence), 1e6),
                        "landmarks": face.pixelLandmarks.namedPoints
                            .reduce(into: [String: Any]()) { $0[$1.0] = ["x": Self.rounded($1.1.x), "y": Self.rounded($1.1.y)] },
                    ]
                },
            ]
        case .failure(let error):
            return ["path": path, "error": ["stage": error.stage.rawValue, "reason": error.reason]]
        }
    }

    private func json(path: String, result: Result<FaceDetectionResult, ClassificationError>) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: jsonObject(path: path, result: result), options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: (try? RawPath.portableJSON(data)) ?? data, as: UTF8.self)
    }

    private func table(path: String, result: Result<FaceDetectionResult, ClassificationError>) -> String {
        switch result {
        case .success(let result):
            let count = result.faces.count
            let rows = result.faces.map { face in
                let box = face.pixelBoundingBox
                return String(format: "  %.3f  x %.0f  y %.0f  %.0fx%.0f", face.confidence, box.x, box.y, box.width, box.height)
            }
            return (["\(path)  \(result.width)x\(result.height)  \(count) face\(count == 1 ? "" : "s")"] + rows).joined(separator: "\n")
        case .failure(let error):
            return "\(path)  FAILED \(error.stage.rawValue): \(error.reason)"
        }
    }
}
