import ArgumentParser
import Classify
import ClassifyIndexing
import ClassifySupport
#if canImport(Glibc)
import Glibc
import TagIndex
#endif

/// The `classify-tool` command: classify photos, keep a label index of folders, search it.
///
/// Usage: `classify-tool index ~/Pictures && classify-tool search dog`
@main
struct ClassifyTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify-tool",
        abstract: "Classify photos on this machine and find them by what is in them.",
        discussion: """
            Results go to stdout; diagnostics and progress go to stderr. The model is
            taken from --model DIR, else $CLASSIFY_MODEL_DIR, else beside the installed
            binary (../share/classify/Models/efficientnet-lite0), else the source
            checkout. The index lives in $XDG_DATA_HOME/classify-tool/index.sqlite
            (~/.local/share/classify-tool/index.sqlite) unless --db PATH says otherwise.

            Exit status:
              0    success
              1    fatal error, or a usage error (unknown option, bad value)
              2    finished, but some files could not be classified
              130  index was interrupted with Ctrl-C (run it again to continue)

            Examples:
              classify-tool classify photo.jpg
              classify-tool faces photo.jpg
              classify-tool index ~/Pictures
              classify-tool search dog
              classify-tool search dog --format json | jq '.results[].path'
              classify-tool serve --open
            """,
        version: ClassifyVersion.current,
        subcommands: [
            ClassifyCommand.self, FacesCommand.self, IndexCommand.self, SearchCommand.self, ShowCommand.self, SimilarCommand.self,
            PeopleCommand.self, DuplicatesCommand.self, TagCommand.self, ExportCommand.self, StatsCommand.self, LabelsCommand.self, ServeCommand.self,
            CopyCommand.self,
        ],
        // What a photo owner uses comes first; measuring and tuning the model on this machine apart.
        // The developers' benchmarks are the separate classify-bench executable.
        groupedSubcommands: [
            CommandGroup(name: "Measure and tune the model", subcommands: [BenchCommand.self, EvaluateCommand.self, CalibrateCommand.self])
        ]
    )

    /// Runs the command line; usage errors exit 1 (ArgumentParser's default would be 64).
    ///
    /// Usage: called by the `@main` entry point.
    static func main() async {
        // Per-image buffers are reused instead of page-faulted in again for every file.
        AllocatorTuning.keepFreedMemory()
        // place: and country: name towns, states and countries from the places file.
        PlaceNames.install(PlaceNameDirectory())
        // The crash-safety tests name a moment of the run at which the process kills itself.
        if let problem = CrashPoints.armFromEnvironment() {
            Terminal.error(problem)
            Glibc.exit(ToolExit.failure)
        }
        do {
            var command = try parseAsRoot(rawArguments())
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            Terminal.error(fullMessage(for: error))
            Glibc.exit(ToolExit.failure)
        }
    }
}

/// The command line as the system gave it: an argument that is not UTF-8 (a path like
/// `caf\xE9.jpg`) keeps its bytes in `RawPath` form, where `CommandLine.arguments` would have
/// replaced them with U+FFFD. Without the program name.
///
/// Usage: `parseAsRoot(rawArguments())`
func rawArguments() -> [String] {
    (0..<Int(CommandLine.argc)).dropFirst().compactMap { index in
        CommandLine.unsafeArgv[index].map { RawPath.string(fromBytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }
}

/// The documented exit statuses.
///
/// Usage: `throw ExitCode(ToolExit.someFilesFailed)`
enum ToolExit {
    /// Success.
    static let success: Int32 = 0
    /// A fatal error or a usage error.
    static let failure: Int32 = 1
    /// The command finished, but some files could not be classified.
    static let someFilesFailed: Int32 = 2
    /// `index` was interrupted with Ctrl-C (SIGINT).
    static let interrupted: Int32 = 130
}
