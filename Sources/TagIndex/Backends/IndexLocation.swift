import Foundation

/// Where an index lives: a SQLite file (the default, one machine) or a PostgreSQL database
/// (one index shared by many machines).
///
/// A value given by a user (`--db`, `CLASSIFY_DB`) is a file path unless it looks like a URL
/// (`scheme://...`): then its scheme must be one TagIndex knows (`postgres`, `postgresql`, or
/// `file` for a SQLite file), never a file silently created in a folder named after the scheme.
///
/// Usage: `let location = try IndexLocation(parsing: "postgres://me@db.local/photos")`
public enum IndexLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(URL)
    /// A PostgreSQL database.
    case postgres(PostgresDescriptor)

    /// Reads a `--db` value: a path, a `file://` URL, or a `postgres://` URL.
    ///
    /// `environment` supplies `PGPASSWORD` when a PostgreSQL URL carries no password.
    /// Throws ``IndexLocationError`` for an empty value, a URL of an unsupported scheme or a
    /// malformed PostgreSQL URL; the message never contains a password.
    ///
    /// Usage: `let location = try IndexLocation(parsing: value, environment: ProcessInfo.processInfo.environment)`
    public init(parsing value: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard !value.isEmpty else { throw IndexLocationError.empty }
        guard let scheme = Self.urlScheme(of: value) else {
            self = .sqlite(URL(fileURLWithPath: value))
            return
        }
        switch scheme.lowercased() {
        case "postgres", "postgresql":
            self = .postgres(try PostgresDescriptor(parsing: value, environment: environment))
        case "file":
            self = .sqlite(try Self.fileURL(value))
        default:
            throw IndexLocationError.unsupportedScheme(scheme: scheme, value: PostgresDescriptor.redacted(value))
        }
    }

    /// The scheme of `value` when it looks like a URL (`scheme://`), else nil.
    ///
    /// A scheme is a letter then letters, digits, `+`, `-` or `.` (RFC 3986), at least two
    /// characters so that a drive-letter path is never taken for one.
    ///
    /// Usage: `IndexLocation.urlScheme(of: "mysql://host/db") == "mysql"`
    public static func urlScheme(of value: String) -> String? {
        guard let colon = value.firstIndex(of: ":"), value[colon...].hasPrefix("://") else { return nil }
        let scheme = value[..<colon]
        guard scheme.count >= 2, let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return String(scheme)
    }

    /// `file:///absolute/path` (or `file://localhost/...`) as a file URL.
    private static func fileURL(_ value: String) throws -> URL {
        let rest = value.drop { $0 != ":" }.dropFirst(3)
        let path: Substring
        if rest.hasPrefix("/") {
            path = rest
        } else if rest.lowercased().hasPrefix("localhost/") {
            path = rest.dropFirst("localhost".count)
        } else {
            throw IndexLocationError.malformed(value: value, reason: "a file URL names a path on this machine: file:///path/to/index.sqlite")
        }
        guard let decoded = String(path).removingPercentEncoding, decoded.count > 1 else {
            throw IndexLocationError.malformed(value: value, reason: "the path is not valid percent-encoding")
        }
        return URL(fileURLWithPath: decoded)
    }

    /// The SQLite file, or nil for a server.
    ///
    /// Usage: `if let file = location.fileURL { print(file.path) }`
    public var fileURL: URL? {
        if case .sqlite(let url) = self { return url }
        return nil
    }

    /// A path, or the PostgreSQL URL without its password.
    ///
    /// Usage: `print("index: \(location)")`
    public var description: String {
        switch self {
        case .sqlite(let url): return url.path
        case .postgres(let descriptor): return descriptor.description
        }
    }
}
