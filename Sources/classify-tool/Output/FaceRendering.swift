import Classify
import ClassifySupport
import Foundation
import TagIndex

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

    private func json(path: String, result: Result<FaceDetectionResult, ClassificationError>) -> String {
        String(decoding: (try? JSONOutput.encode(FacesOfFileOutput(path: path, result: result))) ?? Data(), as: UTF8.self)
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
