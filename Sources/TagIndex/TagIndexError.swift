/// Errors thrown by ``SQLiteIndex`` and ``IndexRun``, each a sentence a user can act on.
///
/// ```swift
/// do { _ = try SQLiteIndex(url: url) } catch let error as TagIndexError { print(error) }
/// ```
public enum TagIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database was written by a newer TagIndex (unknown migrations); it was not modified.
    case newerSchema(path: String, unknownMigrations: [String])
    /// The database needs migrations this version would apply on its next write; a read-only
    /// open leaves it untouched.
    case olderSchema(path: String, missingMigrations: [String])
    /// Another index run holds the writer lock of this database.
    case anotherRunInProgress(path: String)
    /// The file is not a database TagIndex can open.
    case notADatabase(path: String, reason: String)
    /// A search term names no known label; `suggestions` are the closest known names.
    case unknownLabel(term: String, offset: Int?, suggestions: [String])
    /// A search term is a vocabulary word for something the classifier cannot see (`sky`, `sunset`);
    /// `explanation` says so and what to try instead.
    case unsupportedWord(term: String, offset: Int?, explanation: String)
    /// A batch element is invalid (e.g. a feature print of the wrong length).
    case invalidInput(String)
    /// The run was already finished or cancelled.
    case runFinished
    /// The database file could not be opened, read or written: the disk is full, its location is
    /// read-only or gone, or the file is damaged. `reason` says which and what to do. A failed
    /// write changes nothing, so everything written before it stays in the index.
    case storage(path: String, reason: String)

    /// The message shown to users.
    ///
    /// ```swift
    /// print(error.description)
    /// ```
    public var description: String {
        switch self {
        case .newerSchema(let path, let unknown):
            return "\(path) was written by a newer version of TagIndex (schema migrations "
                + "\(unknown.sorted().joined(separator: ", ")) are unknown to this version); "
                + "it was left untouched. Upgrade classify-tool or use another database."
        case .olderSchema(let path, let missing):
            return "\(path) was written by an older version of TagIndex (schema migrations "
                + "\(missing.sorted().joined(separator: ", ")) are missing); run classify-tool index once to upgrade it"
        case .anotherRunInProgress(let path):
            return "another index run is writing to \(path); wait for it to finish or stop it"
        case .notADatabase(let path, let reason):
            return "\(path) is not a TagIndex database: \(reason)"
        case .unknownLabel(let term, let offset, let suggestions):
            var message = "unknown label '\(term)'"
            if let offset { message += " at offset \(offset)" }
            if !suggestions.isEmpty {
                message += "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: ", ") + "?"
            }
            // A town, state or country is searched with place: (a word is a label first).
            if let names = PlaceNames.current, names.place(forWord: term.lowercased()) != nil {
                message += (suggestions.isEmpty ? ". " : " ") + "To search photos taken there, write place:\(term.contains(" ") ? "\"\(term)\"" : term)."
            }
            return message
        case .unsupportedWord(let term, let offset, let explanation):
            return "cannot search for '\(term)'" + (offset.map { " (at offset \($0))" } ?? "") + ": " + explanation
        case .invalidInput(let message):
            return message
        case .runFinished:
            return "this index run was already finished or cancelled"
        case .storage(let path, let reason):
            return "cannot use the index at \(path): \(reason)"
        }
    }
}
