/// Why a `--db` value names no index TagIndex can open. Messages never contain a password.
///
/// Usage: `do { _ = try IndexLocation(parsing: value) } catch let error as IndexLocationError { print(error) }`
public enum IndexLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value is empty.
    case empty
    /// The value is a URL whose scheme names no backend (`mysql://...`); `value` is redacted.
    case unsupportedScheme(scheme: String, value: String)
    /// A `postgres://` or `file://` URL that cannot be read; `value` is redacted.
    case malformed(value: String, reason: String)

    /// The message shown to users.
    ///
    /// Usage: `print(error.description)`
    public var description: String {
        switch self {
        case .empty:
            return "the database location is empty; give a SQLite file path or a postgres:// URL"
        case .unsupportedScheme(let scheme, let value):
            return "'\(value)' is a URL of an unsupported kind (\(scheme)://); an index is a SQLite file path "
                + "or a PostgreSQL URL: postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?sslmode=...]"
        case .malformed(let value, let reason):
            return "'\(value)' is not a database location TagIndex can use: \(reason)"
        }
    }
}
