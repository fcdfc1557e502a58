import Classify
import ClassifySupport
import Foundation
import TagIndex

/// Turns classification results into the `classify` command's output formats.
struct ResultRenderer {
    var format: OutputFormat
    var top: Int?
    var filter: ObservationFilter
    var minimumConfidence: Float

    func kept(_ observations: [ClassificationObservation]) -> [ClassificationObservation] {
        let filtered = observations.filter { $0.confidence >= minimumConfidence && filter.keeps($0) }
        return top.map { Array(filtered.prefix($0)) } ?? filtered
    }

    /// Printed once before the first result.
    var header: String? {
        switch format {
        case .csv: "path,rank,identifier,display_name,confidence,wordnet_id,error_stage,error_reason"
        case .json: "["
        case .table, .jsonl: nil
        }
    }

    /// Printed once after the last result.
    var footer: String? { format == .json ? "]" : nil }

    func render(path: String, result: Result<ClassificationResult, ClassificationError>, isFirst: Bool) -> String {
        switch format {
        case .table: return table(path: path, result: result)
        case .csv: return csv(path: path, result: result)
        case .jsonl: return json(path: path, result: result)
        case .json: return (isFirst ? "  " : ",\n  ") + json(path: path, result: result)
        }
    }

    private func json(path: String, result: Result<ClassificationResult, ClassificationError>) -> String {
        let output = ClassifiedFileOutput(path: path, result: result) { kept($0.observations) }
        return String(decoding: (try? JSONOutput.encode(output)) ?? Data(), as: UTF8.self)
    }

    private func table(path: String, result: Result<ClassificationResult, ClassificationError>) -> String {
        switch result {
        case .success(let result):
            let rows = kept(result.observations).map { observation in
                let confidence = String(format: "%.3f", observation.confidence)
                let name = observation.displayName.replacingOccurrences(of: "_", with: " ") == observation.identifier.replacingOccurrences(of: "_", with: " ")
                    ? "" : "  (\(observation.displayName))"
                return "  \(confidence)  \(observation.identifier)\(name)"
            }
            return (["\(path)  \(result.width)x\(result.height)"] + (rows.isEmpty ? ["  (no label passes the filter)"] : rows)).joined(separator: "\n")
        case .failure(let error):
            return "\(path)  FAILED \(error.stage.rawValue): \(error.reason)"
        }
    }

    private func csv(path: String, result: Result<ClassificationResult, ClassificationError>) -> String {
        switch result {
        case .success(let result):
            return kept(result.observations).enumerated().map { rank, observation in
                [path, String(rank + 1), observation.identifier, observation.displayName, String(format: "%.6f", observation.confidence), observation.wordNetID ?? "", "", ""]
                    .map(Self.csvField).joined(separator: ",")
            }.joined(separator: "\n")
        case .failure(let error):
            return [path, "", "", "", "", "", error.stage.rawValue, error.reason].map(Self.csvField).joined(separator: ",")
        }
    }

    /// RFC 4180: quote fields holding a comma, quote or line break; double inner quotes.
    static func csvField(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
