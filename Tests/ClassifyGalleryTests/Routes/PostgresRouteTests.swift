import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing
import TagIndex
import TagIndexPostgres

@testable import ClassifyGallery

/// The gallery over a PostgreSQL index (the fixture's SQLite index copied into a database of
/// `Scripts/dev-postgres`): the same JSON answers as over SQLite, named library roots mapped to
/// local folders, and 503 while the server cannot be reached.
@Suite(.enabled(if: GalleryPostgres.isAvailable, GalleryPostgres.skipReason))
struct PostgresRouteTests {
    /// The API requests compared, with the status both backends must answer.
    static func requests(_ fixture: GalleryFixture) -> [(String, HTTPResponse.Status)] {
        let golden = fixture.id("golden.jpg"), small = fixture.id("golden-small.jpg"), rotated = fixture.id("rotated.jpg")
        return [
            ("/api/search", .ok),
            ("/api/search?q=dog", .ok),
            ("/api/search?q=animal%20-cat&sort=path&limit=2&page=2", .ok),
            ("/api/search?q=puppy%20OR%20kitty&filter=none", .ok),
            ("/api/search?q=failed", .ok),
            ("/api/search?q=dog&color=DCAA3C", .ok),
            ("/api/search?q=golden&sort=date", .ok),
            ("/api/images/\(small)", .ok),
            ("/api/images/\(rotated)", .ok),
            ("/api/images/\(fixture.id("bad.jpg"))", .ok),
            ("/api/images/\(golden)/similar", .ok),
            ("/api/images/\(golden)/similar?limit=2&page=2&min=0.1", .ok),
            ("/api/duplicates", .ok),
            ("/api/duplicates?threshold=0.5", .ok),
            ("/api/labels", .ok),
            ("/api/labels?q=retr&used=1", .ok),
            ("/api/suggest?q=go", .ok),
            ("/api/suggest?q=ani&limit=3", .ok),
            ("/api/stats", .ok),
            // Bad requests: the same 4xx and the same sentence.
            ("/api/search?q=dgo", .badRequest),
            ("/api/search?q=dog%20AND%20(cat", .badRequest),
            ("/api/search?page=0", .badRequest),
            ("/api/search?color=blue", .badRequest),
            ("/api/images/999999", .notFound),
            ("/api/images/abc", .notFound),
            ("/api/images/\(fixture.id("bad.jpg"))/similar", .notFound),
            ("/api/images/\(golden)/similar?limit=0", .badRequest),
            ("/api/duplicates?threshold=2", .badRequest),
        ]
    }

    /// The JSON with what differs by nature between two servers left out: timings, and the
    /// index's location and size.
    static func comparable(_ response: TestResponse) throws -> String {
        var object = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
        if var dictionary = object as? [String: Any] {
            for key in ["milliseconds", "database", "databaseBytes"] { dictionary[key] = nil }
            object = dictionary
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func theAPIAnswersTheSameOnBothBackends() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let database = try await GalleryPostgres.copy(of: fixture)
        // Roots change nothing for absolute paths, on either backend.
        let roots = [try LibraryRoot(parsing: "elsewhere=/nonexistent")]
        let (sqlite, _) = try await GalleryPostgres.application(.sqlite(fixture.database), fixture: fixture, roots: roots)
        let (postgres, _) = try await GalleryPostgres.application(.postgres(database), fixture: fixture, roots: roots, cache: "cache-pg")
        try await sqlite.test(.router) { sqliteClient in
            try await postgres.test(.router) { postgresClient in
                for (uri, status) in Self.requests(fixture) {
                    let expected = try await sqliteClient.get(uri), answered = try await postgresClient.get(uri)
                    #expect(expected.status == status, "SQLite \(uri): \(expected.text.prefix(300))")
                    #expect(answered.status == status, "PostgreSQL \(uri): \(answered.text.prefix(300))")
                    #expect(try Self.comparable(answered) == Self.comparable(expected), "\(uri)")
                }
                // The statistics name the database without a password, and its size on the server.
                let stats = try await postgresClient.get("/api/stats").object
                #expect(stats["database"] as? String == database.description)
                #expect((stats["databaseBytes"] as? Int ?? 0) > 0)
                // The pages render from the same reads.
                for uri in ["/", "/?q=dog", "/images/\(fixture.id("golden-small.jpg"))", "/duplicates", "/labels", "/labels?label=dog", "/stats"] {
                    let page = try await postgresClient.get(uri)
                    #expect(page.status == .ok, "\(uri)")
                }
                let detail = try await postgresClient.get("/images/\(fixture.id("golden-small.jpg"))").text
                #expect(detail.contains(#"<li class="tile keeper"><a href="/images/\#(fixture.id("golden.jpg"))">"#))
                let thumbnail = try await postgresClient.get("/images/\(fixture.id("poodle.jpg"))/thumbnail")
                #expect(thumbnail.status == .ok && thumbnail.headers[.contentType] == "image/jpeg")
            }
        }
    }

    @Test func namedLibraryRootsMapToALocalFolder() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let database = try await GalleryPostgres.copy(of: fixture)
        // As a named root stores them: `lib:/beach/golden.jpg`.
        let session = try await PostgresSession.connect(database)
        var binds = PostgresBindings()
        binds.append(fixture.photos.path)
        try await session.execute("UPDATE images SET path = 'lib:' || substr(path, length($1) + 1)", binds)
        await session.close()
        let id = fixture.id("poodle.jpg")

        let (mapped, _) = try await GalleryPostgres.application(
            .postgres(database), fixture: fixture, roots: [try LibraryRoot(parsing: "lib=\(fixture.photos.path)")])
        try await mapped.test(.router) { client in
            let thumbnail = try await client.get("/images/\(id)/thumbnail")
            #expect(thumbnail.status == .ok && thumbnail.headers[.contentType] == "image/jpeg")
            let image = try await client.get("/api/images/\(id)").object
            #expect(image["path"] as? String == "lib:/home/poodle.jpg")
            #expect(image["format"] as? String == "JPEG")
            let page = try await client.get("/images/\(id)").text
            #expect(!page.contains("which this server was not told where to find"))
        }

        // Without the root (and a cache of its own, so nothing comes from the first server's):
        // a placeholder with the reason, and the labels still shown.
        let (unmapped, _) = try await GalleryPostgres.application(.postgres(database), fixture: fixture, cache: "cache-unmapped")
        try await unmapped.test(.router) { client in
            let preview = try await client.get("/images/\(id)/preview")
            #expect(preview.status == .notFound)
            #expect(preview.headers[.contentType] == "image/svg+xml")
            let reason = preview.headers[HTTPField.Name("X-Classify-Error")!] ?? ""
            #expect(reason.contains("library 'lib'") && reason.contains("--root lib=FOLDER"), "\(reason)")
            let image = try await client.get("/api/images/\(id)").object
            #expect(image["format"] == nil)
            #expect((image["labels"] as? [[String: Any]])?.first?["identifier"] as? String == "animal")
            let page = try await client.get("/images/\(id)")
            #expect(page.status == .ok)
            #expect(page.text.contains("which this server was not told where to find; start it with --root lib=FOLDER"))
            #expect(page.text.contains("<span class=\"name\">poodle</span>"))
        }
    }

    @Test func aServerThatGoesAwayAnswers503UntilItIsBack() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let database = try await GalleryPostgres.copy(of: fixture)
        let (app, _) = try await GalleryPostgres.application(.postgres(database), fixture: fixture)
        let administration = try await GalleryPostgres.administration()
        try await app.test(.router) { client in
            #expect(try await client.get("/api/search?q=dog").status == .ok)
            // What a server shutting down does to its clients (57P01), and no new connection
            // accepted meanwhile.
            try await administration.execute("ALTER DATABASE \(database.database) WITH ALLOW_CONNECTIONS false")
            for process in try await GalleryPostgres.serverProcesses(of: database, administration) {
                try await administration.execute("SELECT pg_terminate_backend(\(process))")
            }
            for uri in ["/api/search?q=dog", "/api/images/\(fixture.id("golden.jpg"))", "/"] {
                let response = try await client.get(uri)
                #expect(response.status == .serviceUnavailable, "\(uri): \(response.text.prefix(300))")
                expectProtectiveHeaders(response)
                if uri.hasPrefix("/api/") {
                    let message = (response.object["error"] as? [String: Any])?["message"] as? String ?? ""
                    #expect(message.contains(database.endpoint), "\(message)")
                }
            }
            try await administration.execute("ALTER DATABASE \(database.database) WITH ALLOW_CONNECTIONS true")
            let again = try await client.get("/api/search?q=dog")
            #expect(again.status == .ok, "\(again.text.prefix(300))")
            #expect((again.object["total"] as? Int ?? 0) > 0)
        }
        await administration.close()
    }

    /// Reads at the same time run on connections of their own, as many as the gallery's
    /// concurrency; one more waits for a connection to be free.
    @Test func concurrentReadsRunOnSeparateConnections() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let database = try await GalleryPostgres.copy(of: fixture)
        let index = try await GalleryIndex(
            location: .postgres(database), opener: .standard, work: BlockingWork(width: 2, label: "test.database"), connections: 3)
        let barrier = Barrier(parties: 3)
        let processes = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await index.read { backend in
                        // Three reads hold their connections here until all three are in.
                        try await barrier.arrive()
                        let postgres = try #require(backend as? PostgresIndex)
                        return try await postgres.session.all("SELECT pg_backend_pid()") { try $0.decode(Int32.self) }.first ?? 0
                    }
                }
            }
            return try await group.reduce(into: [Int32]()) { $0.append($1) }
        }
        #expect(processes.count == 4)
        #expect(Set(processes).count == 3, "\(processes)")
        await index.close()
    }

    /// A server that stops answering without closing anything (powered off, cut from the
    /// network): its server process for the gallery's connection is stopped with SIGSTOP.
    @Test func aServerThatStopsAnsweringIsA503AfterTheDeadline() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let database = try await GalleryPostgres.copy(of: fixture)
        let (app, server) = try await GalleryPostgres.application(.postgres(database), fixture: fixture)
        let administration = try await GalleryPostgres.administration()
        defer { Task { await administration.close() } }
        try await app.test(.router) { client in
            #expect(try await client.get("/api/search?q=dog").status == .ok)
            let backends = try await GalleryPostgres.serverProcesses(of: database, administration)
            // The gallery's (and maybe the copy's, on its way out).
            try #require(!backends.isEmpty)
            for backend in backends { kill(backend, SIGSTOP) }
            defer { for backend in backends { kill(backend, SIGCONT) } }
            // Only this request has a short deadline: the server cannot answer it however long it
            // waits, while the others get the default's minute whatever the machine's speed.
            server.services.index.deadline.withLock { $0 = .milliseconds(500) }
            let response = try await client.get("/api/search?q=dog")
            server.services.index.deadline.withLock { $0 = .seconds(60) }
            #expect(response.status == .serviceUnavailable)
            let message = (response.object["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("did not answer within 0.5 s"), "\(message)")
            // The connection given up, the next request opens another (the stopped process still
            // holds the old one).
            let again = try await client.get("/api/search?q=dog")
            #expect(again.status == .ok, "\(again.text.prefix(300))")
        }
    }
}

/// Lets tasks through once `parties` of them have arrived (later ones pass at once); gives up
/// with an error after ten minutes instead of hanging a test whose tasks cannot all arrive (a hang
/// guard: a loaded machine can keep a task from running for a minute).
actor Barrier {
    let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) { self.parties = parties }

    func arrive() async throws {
        arrived += 1
        if arrived >= parties {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        let deadline = Task { [weak self] in
            try await Task.sleep(for: .seconds(600))
            await self?.releaseAll()
        }
        await withCheckedContinuation { waiting.append($0) }
        deadline.cancel()
        guard arrived >= parties else { throw BarrierTimeout() }
    }

    private func releaseAll() {
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }

    struct BarrierTimeout: Error {}
}
