import Foundation
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

@Suite struct IndexLocationTests {
    @Test func pathsAreSQLiteFiles() throws {
        #expect(try IndexLocation(parsing: "photos.sqlite", environment: [:]) == .sqlite(URL(fileURLWithPath: "photos.sqlite")))
        #expect(try IndexLocation(parsing: "/var/lib/classify/index.sqlite", environment: [:]).fileURL?.path == "/var/lib/classify/index.sqlite")
        // A colon inside a name is not a scheme without "//" after it.
        #expect(try IndexLocation(parsing: "backup:2024.sqlite", environment: [:]).fileURL != nil)
        #expect(try IndexLocation(parsing: "file:///tmp/my%20index.sqlite", environment: [:]).fileURL?.path == "/tmp/my index.sqlite")
        #expect(try IndexLocation(parsing: "file://localhost/tmp/a.sqlite", environment: [:]).fileURL?.path == "/tmp/a.sqlite")
        #expect(throws: IndexLocationError.self) { try IndexLocation(parsing: "file://server/share/a.sqlite", environment: [:]) }
        #expect(throws: IndexLocationError.empty) { try IndexLocation(parsing: "", environment: [:]) }
    }

    @Test func urlsOfUnsupportedSchemesAreErrors() {
        for value in ["mysql://root@localhost/photos", "sqlite://photos.sqlite", "http://example.com/index", "mariadb+ssl://x/y", "S3://bucket/key"] {
            #expect(throws: IndexLocationError.self, "\(value)") { try IndexLocation(parsing: value, environment: [:]) }
        }
        #expect(IndexLocation.urlScheme(of: "mysql://x") == "mysql")
        #expect(IndexLocation.urlScheme(of: "c://x") == nil)
        #expect(IndexLocation.urlScheme(of: "1abc://x") == nil)
        #expect(IndexLocation.urlScheme(of: "a b://x") == nil)
        #expect(IndexLocation.urlScheme(of: "dir/mysql://x") == nil)
        do {
            _ = try IndexLocation(parsing: "mysql://root:hunter2@localhost/photos", environment: [:])
            Issue.record("expected an error")
        } catch {
            let message = "\(error)"
            #expect(message.contains("mysql://"))
            #expect(message.contains("postgres://"))
            #expect(!message.contains("hunter2"), "\(message)")
        }
    }

    @Test func postgresURLsAreParsed() throws {
        let full = try PostgresDescriptor(parsing: "postgres://classify:s3cret@db.example.org:5433/photos?sslmode=require", environment: [:])
        #expect(full.user == "classify")
        #expect(full.password == "s3cret")
        #expect(full.host == "db.example.org")
        #expect(full.port == 5433)
        #expect(full.database == "photos")
        #expect(full.sslMode == .require)

        let short = try PostgresDescriptor(parsing: "postgresql://me@localhost/index", environment: [:])
        #expect(short.port == 5432)
        #expect(short.sslMode == .prefer)
        #expect(!short.hasPassword)

        let encoded = try PostgresDescriptor(parsing: "postgres://me%40home:p%40ss%3Aword@[::1]:6000/my%20photos", environment: [:])
        #expect(encoded.user == "me@home")
        #expect(encoded.password == "p@ss:word")
        #expect(encoded.host == "::1")
        #expect(encoded.port == 6000)
        #expect(encoded.database == "my photos")
        #expect(encoded.endpoint == "[::1]:6000")

        // A password may contain '@': the last '@' ends it.
        #expect(try PostgresDescriptor(parsing: "postgres://me:a@b@host/db", environment: [:]).password == "a@b")

        let location = try IndexLocation(parsing: "POSTGRES://me@h/db", environment: [:])
        #expect(location == .postgres(PostgresDescriptor(user: "me", host: "h", database: "db")))
    }

    @Test func passwordComesFromPGPASSWORDWhenTheURLHasNone() throws {
        let environment = ["PGPASSWORD": "from-env"]
        #expect(try PostgresDescriptor(parsing: "postgres://me@h/db", environment: environment).password == "from-env")
        #expect(try PostgresDescriptor(parsing: "postgres://me:@h/db", environment: environment).password == "from-env")
        #expect(try PostgresDescriptor(parsing: "postgres://me:url@h/db", environment: environment).password == "url")
        #expect(try PostgresDescriptor(parsing: "postgres://me@h/db", environment: ["PGPASSWORD": ""]).password == nil)
    }

    @Test func malformedPostgresURLsAreErrors() {
        let bad = [
            "postgres://h/db",                    // no user
            "postgres://me@/db",                  // no host
            "postgres://me@h",                    // no database
            "postgres://me@h/",                   // empty database
            "postgres://me@h/a/b",                // two path segments
            "postgres://me@h:0/db",               // port out of range
            "postgres://me@h:99999/db",
            "postgres://me@h:abc/db",
            "postgres://me@[::1/db",              // unclosed IPv6
            "postgres://me@h/db?sslmode=maybe",   // unknown mode
            "postgres://me@h/db?timeout=3",       // unknown parameter
            "postgres://me%zz@h/db",              // bad percent-encoding
        ]
        for value in bad {
            #expect(throws: IndexLocationError.self, "\(value)") { try PostgresDescriptor(parsing: value, environment: [:]) }
        }
    }

    @Test func thePasswordIsNeverShown() throws {
        let secret = "Tr0ub4dor&3"
        let descriptor = try PostgresDescriptor(parsing: "postgres://me:Tr0ub4dor%263@db:5433/photos", environment: [:])
        #expect(descriptor.password == secret)
        #expect(descriptor.description == "postgres://me@db:5433/photos?sslmode=prefer")
        var dumped = ""
        dump(descriptor, to: &dumped)
        let location = IndexLocation.postgres(descriptor)
        var dumpedLocation = ""
        dump(location, to: &dumpedLocation)
        for text in [descriptor.description, descriptor.debugDescription, "\(descriptor)", String(reflecting: descriptor), dumped,
                     "\(location)", String(reflecting: location), dumpedLocation, "\([location])"] {
            #expect(!text.contains(secret) && !text.contains("Tr0ub4dor"), "\(text)")
        }
        // Errors about a URL that cannot be read redact the password too.
        do {
            _ = try PostgresDescriptor(parsing: "postgres://me:Tr0ub4dor@db:notaport/photos", environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(!"\(error)".contains("Tr0ub4dor"), "\(error)")
            #expect("\(error)".contains("postgres://me:***@db:notaport/photos"), "\(error)")
        }
        #expect(PostgresDescriptor.redacted("postgres://me:a@b@h/db?x=1") == "postgres://me:***@h/db?x=1")
        #expect(PostgresDescriptor.redacted("postgres://me@h/db") == "postgres://me@h/db")
    }

    @Test func descriptionsReadBack() throws {
        for value in ["postgres://me@h:1/db?sslmode=disable", "postgres://a%20b@[fe80::1]:5432/x%2Fy?sslmode=verify-full"] {
            let descriptor = try PostgresDescriptor(parsing: value, environment: [:])
            #expect(descriptor.description == value)
            #expect(try PostgresDescriptor(parsing: descriptor.description, environment: [:]) == descriptor)
        }
    }
}
