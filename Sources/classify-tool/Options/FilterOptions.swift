import ArgumentParser
import Classify

/// `--filter` and `--min-confidence`, shared by `classify` and `search`.
enum FilterChoice: String, ExpressibleByArgument, CaseIterable {
    case none
    case highRecall = "high-recall"
    case highPrecision = "high-precision"

    var observationFilter: ObservationFilter {
        switch self {
        case .none: .none
        case .highRecall: .highRecall
        case .highPrecision: .highPrecision
        }
    }
}

/// `--format` for commands that print per-image results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv
}
