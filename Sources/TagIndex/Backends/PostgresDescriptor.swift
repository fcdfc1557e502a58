import Foundation

/// A PostgreSQL database named by a URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?sslmode=MODE]`.
///
/// The password comes from the URL, else from `PGPASSWORD`; it is kept only to connect.
/// `description`, `debugDescription` and the mirror (`dump`, `print` of containing values) show
/// the URL without it, so no error, log line or `stats` output can carry it.
///
/// Percent-encoding is decoded in the user, password and database name
/// (`postgres://me:p%40ss@db/photos` has the password `p@ss`); an IPv6 host is written in
/// brackets (`postgres://me@[::1]:5433/photos`). The port defaults to 5432, `sslmode` to `prefer`.
///
/// Usage: `let descriptor = try PostgresDescriptor(parsing: "postgres://classify@127.0.0.1:5433/photos")`
public struct PostgresDescriptor: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// TLS as libpq's `sslmode` names it.
    ///
    /// Usage: `if descriptor.sslMode == .require { ... }`
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP only.
        case disable
        /// Plain TCP, TLS if the server insists (treated as `prefer`: PostgresNIO starts with TLS or not at all).
        case allow
        /// TLS when the server offers it, else plain TCP (libpq's default).
        case prefer
        /// TLS or fail, without checking the server's certificate.
        case require
        /// TLS or fail, the certificate chain checked against the system's trust roots.
        case verifyCA = "verify-ca"
        /// As `verifyCA`, and the certificate must name the host.
        case verifyFull = "verify-full"
    }

    /// The role to log in as.
    public var user: String
    /// The password, from the URL or `PGPASSWORD`; never shown.
    package var password: String?
    /// The server's host name or address (an IPv6 address without brackets).
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The database name.
    public var database: String
    /// How to use TLS.
    public var sslMode: SSLMode

    /// Whether a password will be sent (from the URL or `PGPASSWORD`).
    ///
    /// Usage: `if !descriptor.hasPassword { print("trust or peer authentication") }`
    public var hasPassword: Bool { password != nil }

    /// Makes a descriptor from its parts.
    ///
    /// Usage: `let descriptor = PostgresDescriptor(user: "classify", host: "127.0.0.1", port: 5433, database: "photos")`
    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String, sslMode: SSLMode = .prefer) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Reads a `postgres://` or `postgresql://` URL; `environment["PGPASSWORD"]` is the password
    /// when the URL has none. Throws ``IndexLocationError/malformed(value:reason:)`` (with the
    /// password redacted) for anything it cannot read.
    ///
    /// Usage: `let descriptor = try PostgresDescriptor(parsing: url, environment: ["PGPASSWORD": "secret"])`
    public init(parsing value: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func malformed(_ reason: String) -> IndexLocationError {
            .malformed(value: Self.redacted(value), reason: reason)
        }
        guard let schemeEnd = value.range(of: "://"),
              ["postgres", "postgresql"].contains(value[..<schemeEnd.lowerBound].lowercased())
        else { throw malformed("a PostgreSQL URL starts with postgres://") }
        var rest = value[schemeEnd.upperBound...]
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw malformed("the URL names no database: postgres://USER@HOST[:PORT]/DBNAME")
        }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]

        guard let at = authority.lastIndex(of: "@") else {
            throw malformed("the URL names no user: postgres://USER@HOST[:PORT]/DBNAME")
        }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]
        let rawUser: Substring, rawPassword: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            rawPassword = userInfo[userInfo.index(after: colon)...]
        } else {
            rawUser = userInfo
            rawPassword = nil
        }
        guard let user = String(rawUser).removingPercentEncoding, !user.isEmpty else {
            throw malformed("the user name is empty or not valid percent-encoding")
        }
        var password: String?
        if let rawPassword {
            guard let decoded = String(rawPassword).removingPercentEncoding else {
                throw malformed("the password is not valid percent-encoding")
            }
            password = decoded
        }
        if password == nil || password == "", let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            password = fromEnvironment
        }
        if password == "" { password = nil }

        let host: String, portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw malformed("an IPv6 host needs its closing ']'") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw malformed("unexpected '\(after)' after the IPv6 host")
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
            portText = nil
        }
        guard !host.isEmpty else { throw malformed("the URL names no host: postgres://USER@HOST[:PORT]/DBNAME") }
        var port = 5432
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw malformed("the port '\(portText)' is not a number in 1...65535")
            }
            port = number
        }
        guard !path.contains("/"), let database = String(path).removingPercentEncoding, !database.isEmpty else {
            throw malformed("the URL names no database (or more than one path segment): postgres://USER@HOST[:PORT]/DBNAME")
        }

        var sslMode = SSLMode.prefer
        for parameter in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0])
            let text = pair.count > 1 ? String(pair[1]).removingPercentEncoding ?? "" : ""
            switch key {
            case "sslmode":
                guard let mode = SSLMode(rawValue: text) else {
                    throw malformed("sslmode '\(text)' is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            default:
                throw malformed("unknown parameter '\(key)' (only sslmode is understood)")
            }
        }
        self.init(user: user, password: password, host: host, port: port, database: database, sslMode: sslMode)
    }

    /// The URL without the password: `postgres://USER@HOST:PORT/DBNAME?sslmode=MODE`.
    ///
    /// Usage: `print("index: \(descriptor)")`
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(Self.encode(user))@\(hostPart):\(port)/\(Self.encode(database))?sslmode=\(sslMode.rawValue)"
    }

    /// The same as `description`: the password is never shown, not even when debugging.
    ///
    /// Usage: `debugPrint(descriptor)`
    public var debugDescription: String { description }

    /// A mirror without the password, for `dump` and the description of values holding a descriptor.
    ///
    /// Usage: `dump(descriptor)`
    public var customMirror: Mirror {
        Mirror(self, children: [
            "user": user, "host": host, "port": port, "database": database, "sslMode": sslMode.rawValue,
            "hasPassword": hasPassword,
        ], displayStyle: .struct)
    }

    /// `host:port` as users write it, for messages about reaching the server.
    ///
    /// Usage: `print("cannot reach \(descriptor.endpoint)")`
    public var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `value` with anything between `://USER:` and the last `@` of the authority replaced by `***`,
    /// for messages about URLs that could not be read.
    ///
    /// Usage: `PostgresDescriptor.redacted("postgres://me:secret@h/db") == "postgres://me:***@h/db"`
    public static func redacted(_ value: String) -> String {
        guard let schemeEnd = value.range(of: "://") else { return value }
        let rest = value[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return value }
        return String(value[..<colon]) + ":***" + String(value[at...])
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
