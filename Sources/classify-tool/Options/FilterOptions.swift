import ArgumentParser
import Classify

/// `--filter`, shared by `classify` and `search`.
///
/// Usage: `@Option var filter: FilterChoice = .none`
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
///
/// Usage: `@Option var format: OutputFormat = .table`
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv
}

/// `--format` for commands that print one record or one listing (`show`, `labels`).
///
/// Usage: `@Option var format: DetailFormat = .table`
enum DetailFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}
