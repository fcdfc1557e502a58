import ClassifyTestSupport
import Foundation
import PostgresNIO
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// The write side of a shared PostgreSQL index (`PostgresIndexRun`, `PostgresIndexWorker`) on the
/// cluster of Scripts/dev-postgres: claims with leases, writers racing on the same paths, writes
/// repeated after a fault. Skipped, saying why, where PostgreSQL is not installed.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresIndexRunTests {
    static let labels = [
        LabelDefinition(identifier: "animal", displayName: "Animal"),
        LabelDefinition(identifier: "dog", displayName: "Dog", parents: ["animal"]),
        LabelDefinition(identifier: "cat", displayName: "Cat", parents: ["animal"]),
        LabelDefinition(identifier: "car", displayName: "Car"),
    ]
    static let model = ModelStamp(name: "test", version: "1")
    static let root = try! LibraryRoot(name: "lib", localPath: "/lib")

    static func begin(_ descriptor: PostgresDescriptor, lease: Duration = .seconds(60)) async throws -> PostgresIndexRun {
        var settings = RunSettings()
        settings.lease = lease
        return try await PostgresIndexRun.begin(descriptor, roots: [root], labels: labels, model: model, settings: settings)
    }

    static func entry(_ name: String, _ labels: [(String, Double)], hash: String? = nil) -> IndexEntry {
        .classified(ImageClassification(
            path: "/lib/\(name)", size: 100, modificationTime: Date(timeIntervalSince1970: 1_700_000_000), contentHash: hash ?? "hash-\(name)",
            width: 10, height: 10, model: model, observations: labels.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }))
    }

    static func rows(_ descriptor: PostgresDescriptor, _ sql: String) async throws -> [String] {
        let session = try await PostgresSession.connect(descriptor)
        defer { Task { await session.close() } }
        return try await session.all(sql) { try $0.decode(String.self) }
    }

    /// Counts that add up and packed labels that match the observations.
    static func checkIntegrity(_ descriptor: PostgresDescriptor) async throws {
        #expect(try await rows(descriptor, """
            SELECT l.identifier FROM labels AS l WHERE l.image_count <> (SELECT COUNT(*) FROM observations AS o WHERE o.label_id = l.id)
            """) == [])
        #expect(try await rows(descriptor, """
            SELECT i.path FROM images AS i LEFT JOIN image_labels AS p ON p.image_id = i.id
            WHERE COALESCE(length(p.packed), 0) / 8 <> (SELECT COUNT(*) FROM observations AS o WHERE o.image_id = i.id)
            """) == [])
    }

    @Test func writersRacingOnTheSamePathsKeepEveryCountExact() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await Self.begin(descriptor)
        let choices: [[(String, Double)]] = [[("dog", 0.9)], [("cat", 0.8), ("dog", 0.3)], [("car", 0.7)], [], [("cat", 0.6), ("car", 0.2)]]
        // Four writers, each 15 batches of 4 files drawn from 12 names, in parallel: the same
        // rows are replaced over and over by transactions that overlap.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let worker = run.makeWorker()
                    var random = SeededRandom(seed: UInt64(writer + 1))
                    for _ in 0..<15 {
                        let batch = (0..<4).map { _ in
                            Self.entry("p\(random.next() % 12).jpg", choices[Int(random.next() % UInt64(choices.count))])
                        }
                        try await worker.write(batch, completing: [])
                    }
                    await worker.close()
                }
            }
            try await group.waitForAll()
        }
        try await Self.checkIntegrity(descriptor)
        let paths = try await Self.rows(descriptor, "SELECT path FROM images ORDER BY path")
        #expect(Set(paths).count == paths.count && paths.allSatisfy { $0.hasPrefix("lib:/p") }, "\(paths)")
        // Each image holds one of the label sets written for it, never a mix of two.
        let stored = try await Self.rows(descriptor, """
            SELECT i.path || ' ' || COALESCE(string_agg(l.identifier, ',' ORDER BY l.identifier) FILTER (WHERE o.confidence IS NOT NULL), '')
            FROM images AS i LEFT JOIN observations AS o ON o.image_id = i.id LEFT JOIN labels AS l ON l.id = o.label_id GROUP BY i.path
            """)
        let allowed = Set(choices.map { $0.map(\.0).sorted().joined(separator: ",") })
        for line in stored { #expect(allowed.contains(String(line.split(separator: " ", omittingEmptySubsequences: false)[1])), "\(line)") }

        // Boolean searches read the blocks the writers changed from observations, and the
        // finished run compacts them into postings that mirror the observations.
        let index = try await PostgresIndex.open(descriptor)
        defer { Task { await index.close() } }
        #expect(try await PostgresPostings.changedBlockCount(index.session) == 1)
        try await PostgresPostingsTests.expectEnginesAgree(index, ["dog OR cat", "animal -car", "car OR dog OR cat"], context: "a run")
        _ = try await run.finish()
        #expect(try await PostgresPostings.changedBlockCount(index.session) == 0)
        #expect(try await PostgresPostings.matchObservations(index.session))
        #expect(try await PostgresPostings.printsMatchImages(index.session))
        try await PostgresPostingsTests.expectEnginesAgree(index, ["dog OR cat", "animal -car", "car OR dog OR cat"], context: "a run")
    }

    @Test func aWriteRunAgainAfterAFaultChangesNothing() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await Self.begin(descriptor)
        let worker = run.makeWorker()
        let batch = [Self.entry("a.jpg", [("dog", 0.9)]), Self.entry("b.jpg", [("cat", 0.5), ("car", 0.4)])]
        #expect(try await worker.write(batch, completing: []) == [true, true])
        let before = try await Self.rows(descriptor, "SELECT identifier || '=' || image_count FROM labels ORDER BY identifier")
        // As after a COMMIT whose answer was lost: the same transaction again.
        #expect(try await worker.write(batch, completing: []) == [false, false])
        #expect(try await Self.rows(descriptor, "SELECT identifier || '=' || image_count FROM labels ORDER BY identifier") == before)
        #expect(before == ["animal=2", "car=1", "cat=1", "dog=1"])
        try await Self.checkIntegrity(descriptor)
        await worker.close()
    }

    @Test func claimsAreExclusiveUntilTheirLeaseRunsOut() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await Self.begin(descriptor)
        let walker = run.makeWorker(), first = run.makeWorker(), second = run.makeWorker()
        let files = (0..<3).map { FileFacts(path: "/lib/f\($0).jpg", size: 100, modificationTime: Date(timeIntervalSince1970: 1_700_000_000)) }
        #expect(try await walker.plan(files) == 3)
        #expect(try await walker.plan(files) == 3, "queued again, not twice")
        #expect(try await Self.rows(descriptor, "SELECT COUNT(*)::text FROM index_queue") == ["3"])

        let claimed = try await first.claim(limit: 10)
        #expect(claimed.map(\.libraryPath) == ["lib:/f0.jpg", "lib:/f1.jpg", "lib:/f2.jpg"])
        #expect(claimed.allSatisfy { $0.attempts == 1 && $0.facts.path.hasPrefix("/lib/f") })
        #expect(try await second.claim(limit: 10).isEmpty, "a live claim is no one else's")
        // The first worker dies (it never writes); once its lease runs out the files are taken over.
        // The lease is run out in the database, not waited for, so no timing decides the test.
        #expect(try await Self.rows(descriptor, "UPDATE index_queue SET lease_until = now() - interval '1 second' RETURNING path").count == 3)
        let taken = try await second.claim(limit: 10)
        #expect(taken.map(\.libraryPath) == claimed.map(\.libraryPath))
        #expect(taken.allSatisfy { $0.attempts == 2 })
        try await second.write(taken.map { Self.entry(String($0.libraryPath.dropFirst("lib:/".count)), [("dog", 0.9)]) }, completing: taken)
        #expect(try await Self.rows(descriptor, "SELECT COUNT(*)::text FROM index_queue") == ["0"])
        // The first worker comes back and writes too: one row per file still, the queue stays empty.
        try await first.write(claimed.map { Self.entry(String($0.libraryPath.dropFirst("lib:/".count)), [("cat", 0.9)]) }, completing: claimed)
        #expect(try await Self.rows(descriptor, "SELECT path FROM images ORDER BY path") == ["lib:/f0.jpg", "lib:/f1.jpg", "lib:/f2.jpg"])
        try await Self.checkIntegrity(descriptor)
        // Written files are not queued again.
        #expect(try await walker.plan(files) == 0)
        for worker in [walker, first, second] { await worker.close() }
    }

    /// A claim held while its file takes longer than a lease is renewed by the run's heartbeat,
    /// and stops being renewed once written. The test waits for a renewal to be seen (however
    /// slow the machine), not for a time to pass.
    @Test func theHeartbeatKeepsHeldClaimsAlive() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let run = try await Self.begin(descriptor, lease: .seconds(3))
        let walker = run.makeWorker(), worker = run.makeWorker()
        try await walker.plan([FileFacts(path: "/lib/slow.jpg", size: 100, modificationTime: Date(timeIntervalSince1970: 1_700_000_000))])
        let claims = try await worker.claim(limit: 1)
        #expect(claims.map(\.libraryPath) == ["lib:/slow.jpg"])
        let leaseSQL = "SELECT (extract(epoch FROM lease_until) * 1000000)::bigint::text FROM index_queue"
        let first = try #require(Int64(try await Self.rows(descriptor, leaseSQL).first ?? ""))
        let heartbeat = Task { await run.keepClaimsAlive() }
        var renewed = false
        for _ in 0..<6000 where !renewed {
            try await Task.sleep(for: .milliseconds(100))
            renewed = (Int64(try await Self.rows(descriptor, leaseSQL).first ?? "") ?? 0) > first
        }
        #expect(renewed, "the heartbeat renewed the lease")
        try await worker.write([Self.entry("slow.jpg", [("dog", 0.9)])], completing: claims)
        heartbeat.cancel()
        #expect(run.state.withLock { $0.held.isEmpty }, "a written claim is no longer held")
        #expect(try await Self.rows(descriptor, "SELECT COUNT(*)::text FROM index_queue") == ["0"])
        for worker in [walker, worker] { await worker.close() }
    }
}
