import ArgumentParser
import Foundation
import TagIndex
import TagIndexPostgres

/// `classify-tool copy --from A --to B`: moves an index between SQLite and PostgreSQL (or into a
/// new file or another database of the same kind) without classifying again.
///
/// Usage: `classify-tool copy --from photos.sqlite --to postgres://me@nas/photos`
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy an index between SQLite files and PostgreSQL databases without classifying again.",
        discussion: """
            Copies every image, label, observation, feature print, face and correction,
            ids kept. A PostgreSQL target must be an existing, empty database (its tables
            are created); a SQLite target must be a new file. The password of a
            postgres:// URL may also come from $PGPASSWORD.

            Examples:
              classify-tool copy --from photos.sqlite --to postgres://me@nas/photos
              classify-tool copy --from postgres://me@nas/photos --to photos.sqlite
              classify-tool copy --from photos.sqlite --to /mnt/backup/photos.sqlite
            """)

    @Option(help: ArgumentHelp("The index to read: a SQLite file or a postgres:// URL.", valueName: "path|url")) var from: String
    @Option(help: ArgumentHelp("Where to copy it: a new SQLite file or an empty PostgreSQL database.", valueName: "path|url")) var to: String
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        let (source, target) = try locations()
        if source == target { throw ValidationError("--from and --to are the same index") }
    }

    private func locations() throws -> (IndexLocation, IndexLocation) {
        func parse(_ value: String, _ option: String) throws -> IndexLocation {
            do { return try IndexLocation(parsing: value) } catch let error as IndexLocationError {
                throw ValidationError("\(option): \(error)")
            }
        }
        return (try parse(from, "--from"), try parse(to, "--to"))
    }

    func run() async throws {
        verbosity.apply()
        let (source, target) = try locations()
        let started = ContinuousClock.now
        let summary: IndexCopy.Summary
        do {
            if let file = source.fileURL, !FileManager.default.fileExists(atPath: file.path) {
                Terminal.error("error: no index at \(file.path)")
                throw ExitCode(ToolExit.failure)
            }
            let opener = IndexOpener.standard
            let index = try await opener.openForReading(source)
            do {
                summary = try await IndexCopy.copy(from: index, to: try opener.copyTarget(target))
                await index.close()
            } catch {
                await index.close()
                throw error
            }
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        let elapsed = started.duration(to: .now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        Terminal.out(
            "copied \(summary.count(of: "images")) images, \(summary.count(of: "labels")) labels, "
                + "\(summary.count(of: "observations")) observations, \(summary.count(of: "corrections")) corrections "
                + "from \(source) to \(target) in \(String(format: "%.1f", seconds)) s")
    }
}
