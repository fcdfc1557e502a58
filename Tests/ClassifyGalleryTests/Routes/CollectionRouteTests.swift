import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TagIndex
import Testing

@testable import ClassifyGallery

/// The duplicates, labels and statistics pages and their API.
@Suite struct CollectionRouteTests {
    @Test func duplicatesPageGroupsCopiesWithTheKeeperFirst() async throws {
        try await withGallery { fixture, client in
            let page = try await client.get("/duplicates")
            #expect(page.status == .ok)
            expectProtectiveHeaders(page)
            let html = page.text
            #expect(html.contains("1 group, 2 photos, 1 could go"))
            #expect(html.contains(#"<input type="range" id="threshold" name="threshold" min="0.5" max="1" step="0.01" value="0.80">"#))
            let keeper = html.range(of: #"<li class="tile keeper"><a href="/images/\#(fixture.id("golden.jpg"))">"#)
            let copy = html.range(of: #"<li class="tile"><a href="/images/\#(fixture.id("golden-small.jpg"))">"#)
            #expect(keeper != nil && copy != nil && keeper!.lowerBound < copy!.lowerBound)

            let api = try await client.get("/api/duplicates?threshold=0.9").object
            #expect(api["threshold"] as? Double == 0.9)
            let groups = api["groups"] as? [[String: Any]] ?? []
            #expect(groups.count == 1)
            #expect(groups.first?["keeper"] as? String == fixture.photos.appending(path: "beach/golden.jpg").path)
            let members = groups.first?["members"] as? [[String: Any]] ?? []
            for key in ["path", "score", "size", "width", "height", "id"] { #expect(members.first?[key] != nil, "missing \(key)") }
            // Above the pair's score nothing is grouped.
            #expect((try await client.get("/api/duplicates?threshold=1").object["groups"] as? [Any])?.isEmpty == true)
            #expect(try await client.get("/api/duplicates?threshold=0.2").status == .badRequest)
            #expect(try await client.get("/duplicates?threshold=x").status == .badRequest)
        }
    }

    @Test func labelsPagesBrowseTheTaxonomyWithCounts() async throws {
        try await withGallery { _, client in
            let labels = try await client.get("/labels")
            #expect(labels.status == .ok)
            #expect(labels.text.contains("10 labels, 10 of them in your photos"))
            #expect(labels.text.contains(#"<a href="/labels?label=animal">animal</a><span class="count">5</span>"#))
            let dog = try await client.get("/labels?label=dog").text
            #expect(dog.contains("<h1>dog</h1>"))
            #expect(dog.contains(#"<a class="button" href="/?q=dog">Show 4 photos</a>"#))
            #expect(dog.contains("Also called: puppy"))
            #expect(dog.contains(#"<a href="/labels?label=golden_retriever">golden retriever</a><span class="count">2</span>"#))
            #expect(dog.contains(#"<a href="/labels?label=animal">animal</a>"#), "its parent in the breadcrumbs")
            let filtered = try await client.get("/labels?q=retr").text
            #expect(filtered.contains("2 labels match “retr”"))
            #expect(try await client.get("/labels?label=unicorn").status == .notFound)

            let api = try await client.get("/api/labels?used=1").array
            #expect(api.first?["identifier"] as? String == "animal")
            for key in ["identifier", "displayName", "parents", "synonyms", "classes", "images", "children"] {
                #expect(api.first?[key] != nil, "missing \(key)")
            }
            let dogEntry = try await client.get("/api/labels?q=dog").array.first
            #expect(dogEntry?["classes"] as? Int == 3)
            #expect(dogEntry?["images"] as? Int == 4)
        }
    }

    @Test func statsShowWhatTheStatsCommandPrints() async throws {
        try await withGallery { fixture, client in
            let stats = try await client.get("/api/stats").object
            #expect(stats["images"] as? Int == 6)
            #expect(stats["failed"] as? Int == 1)
            #expect(stats["labels"] as? Int == 10)
            #expect(stats["labelsInUse"] as? Int == 10)
            #expect(stats["database"] as? String == fixture.database.path)
            #expect((stats["databaseBytes"] as? Int ?? 0) > 0)
            #expect((stats["models"] as? [[String: Any]])?.first?["model"] as? String == "lite0@1")
            let page = try await client.get("/stats").text
            #expect(page.contains("6 classified"))
            #expect(page.contains(#"<a href="/?q=failed&amp;sort=path">1 could not be classified</a>"#))
        }
    }
}

/// Safety beyond single routes: the Host check and a writer running meanwhile.
@Suite struct GallerySafetyTests {
    @Test func requestsForAnotherHostAreRefusedOnLoopback() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let hosts = HostCheck()
        hosts.allow(HostCheck.loopbackNames(host: "127.0.0.1", port: 8080))
        #expect(hosts.permits("127.0.0.1:8080") && hosts.permits("LOCALHOST:8080") && hosts.permits("[::1]:8080"))
        #expect(!hosts.permits("evil.example:8080") && !hosts.permits("127.0.0.1:9999") && !hosts.permits(nil))
        #expect(HostCheck().permits("anything"), "a server on another address accepts any host")
        // The in-process client addresses every request to "localhost", without a port.
        try await fixture.application(hosts: hosts).test(.router) { client in
            let rebound = try await client.get("/api/search?q=dog")
            #expect(rebound.status == .misdirectedRequest)
            expectProtectiveHeaders(rebound)
            #expect(rebound.text.contains("only answers requests addressed to its own address"))
        }
        let local = HostCheck()
        local.allow(["localhost"])
        try await fixture.application(hosts: local).test(.router) { client in
            let response = try await client.get("/api/stats")
            #expect(response.status == .ok)
        }
    }

    @Test func newPhotosWrittenByAnIndexRunShowOnTheNextRequest() async throws {
        try await withGallery { fixture, client in
            #expect(try await client.get("/api/search?q=tabby").object["total"] as? Int == 1)
            let writer = try SQLiteIndex(url: fixture.database)
            try writer.write(batch: [.classified(ImageClassification(
                path: fixture.photos.appending(path: "home/tabby2.jpg").path, size: 10, modificationTime: Date(),
                contentHash: "00000000000000aa", width: 10, height: 10, model: GalleryFixture.model,
                observations: [LabelConfidence(identifier: "tabby", confidence: 0.9)]))])
            #expect(try await client.get("/api/search?q=tabby").object["total"] as? Int == 2)
        }
    }

    @Test func theServerNeverWritesTheIndex() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let before = try Data(contentsOf: fixture.database)
        try await fixture.application().test(.router) { client in
            _ = try await client.get("/?q=dog")
            _ = try await client.get("/duplicates")
        }
        #expect(try Data(contentsOf: fixture.database) == before)
        #expect(throws: TagIndexError.self) { try SQLiteIndex(readingFrom: fixture.root.appending(path: "missing.sqlite")) }
    }
}
