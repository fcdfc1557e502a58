import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ClassifyGallery

@Suite struct SearchRouteTests {
    @Test func searchPageShowsThumbnailsFacetsCountAndTime() async throws {
        try await withGallery { fixture, client in
            let response = try await client.get("/?q=dog")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            expectProtectiveHeaders(response)
            let html = response.text
            // Each result: an <a> to its page around a lazy <img> whose alt names its top labels.
            let golden = fixture.id("golden.jpg")
            #expect(html.contains(#"<a href="/images/\#(golden)"><img src="/images/\#(golden)/thumbnail?v="#))
            #expect(html.contains(#"alt="Golden retriever, grass""#))
            #expect(html.contains(#"loading="lazy""#))
            #expect(html.contains("<input type=\"search\" name=\"q\" value=\"dog\""))
            // golden, golden-small and poodle match; gone.jpg too (the index still lists it).
            #expect(html.contains("4 photos · "))
            #expect(html.contains(" ms</p>"))
            // Facets narrow: 'grass' is on 2 of 4 results and links to the narrowed query.
            #expect(html.contains(#"<a href="/?q=dog%20grass"><span>grass</span><span class="count">2</span></a>"#))
            // 'dog' is on every result: no use as a facet.
            #expect(!html.contains("<span>dog</span>"))
            #expect(!html.contains("<script>"), "no inline script (the CSP forbids it)")
        }
    }

    @Test func emptyQueryShowsEveryPhotoNewestFirst() async throws {
        try await withGallery { fixture, client in
            let html = try await client.get("/").text
            #expect(html.contains("6 photos"))
            let gone = html.range(of: "/images/\(fixture.id("gone.jpg"))\"")!, golden = html.range(of: "/images/\(fixture.id("golden.jpg"))\"")!
            #expect(gone.lowerBound < golden.lowerBound, "gone.jpg was modified last")
        }
    }

    /// The library is a timeline: a heading where each month starts, a year/month bar whose links
    /// go to the page and heading of each month, and date and place facets that narrow the search.
    @Test func theLibraryIsATimelineWithDateAndPlaceFacets() async throws {
        try await withGallery { fixture, client in
            let html = try await client.get("/").text
            // Five photos state no date (their file times are in June 2025); golden.jpg was taken in June 2023.
            #expect(html.contains(#"<li class="month-heading" id="m-2025-06"><h2>June 2025</h2></li>"#), "\(html)")
            #expect(html.contains(#"<li class="month-heading" id="m-2023-06"><h2>June 2023</h2></li>"#))
            let newest = try #require(html.range(of: "id=\"m-2025-06\"")), oldest = try #require(html.range(of: "id=\"m-2023-06\""))
            let golden = try #require(html.range(of: "/images/\(fixture.id("golden.jpg"))\""))
            #expect(newest.lowerBound < oldest.lowerBound && oldest.upperBound < golden.lowerBound)
            #expect(html.contains(#"<a class="year" href="/#m-2025-06">2025</a><a class="month" href="/#m-2025-06" title="June 2025: 5 photos">Jun</a>"#))
            #expect(html.contains(#"<a class="month" href="/#m-2023-06" title="June 2023: 1 photo">Jun</a>"#))
            // Years and places: each a link that adds a term; a facet every photo shares is left out.
            #expect(html.contains("<h2>Taken</h2>") && html.contains("<h2>Places</h2>"))
            #expect(html.contains(#"<a href="/?q=taken%3A2023"><span>2023</span><span class="count">1</span></a>"#), "\(html)")
            #expect(html.contains(#"<a href="/?q=country%3Afr"><span>France</span>"#) || html.contains(#"<a href="/?q=country%3Afr"><span>FR</span>"#))
            let place = try await client.get("/?q=country:fr").text
            #expect(place.contains("1 photo ·") && place.contains("/images/\(fixture.id("golden.jpg"))\""))
            // A later page of the timeline: the bar's links say which page each month starts on.
            let second = try await client.get("/?limit=2&page=2").text
            #expect(second.contains(#"href="/?limit=2&amp;page=3#m-2023-06""#), "\(second)")
            // Sorted another way, or searched by score, the grid has no month headings.
            #expect(!(try await client.get("/?sort=path").text.contains("month-heading")))
            #expect(!(try await client.get("/?q=dog").text.contains("month-heading")))
        }
    }

    @Test func plainWordsSayHowTheyWereRead() async throws {
        try await withGallery { fixture, client in
            let html = try await client.get("/?q=paris%202023").text
            #expect(html.contains("1 photo ·") && html.contains("/images/\(fixture.id("golden.jpg"))\""), "\(html)")
            #expect(!html.contains(#"class="badge""#), "nothing was scored")
            // Nothing to score: newest taken first, with month headings but no timeline bar.
            #expect(html.contains(#"<li class="month-heading" id="m-2023-06"><h2>June 2023</h2></li>"#) && !html.contains(#"class="timeline""#))
            let api = try await client.get("/api/search?q=dog%20white").object
            #expect(api["notes"] == nil && (api["total"] as? Int ?? 0) >= 1)
        }
    }

    @Test func unknownLabelSuggestsCloseNamesAsLinks() async throws {
        try await withGallery { _, client in
            let page = try await client.get("/?q=dgo%20grass")
            #expect(page.status == .badRequest)
            expectProtectiveHeaders(page)
            #expect(page.text.contains("No label is called &#39;dgo&#39;."))
            #expect(page.text.contains(#"<a class="chip" href="/?q=dog%20grass">dog</a>"#))
            let api = try await client.get("/api/search?q=dgo")
            #expect(api.status == .badRequest)
            #expect(api.headers[.contentType] == "application/json; charset=utf-8")
            let error = api.object["error"] as? [String: Any]
            #expect(error?["message"] as? String == "No label is called 'dgo'.")
            #expect((error?["suggestions"] as? [String])?.contains("dog") == true)
        }
    }

    @Test func badRequestsAreClearFourHundreds() async throws {
        try await withGallery { _, client in
            let cases: [(String, String)] = [
                ("/api/search?q=dog%20AND%20(cat", "expected ')'"),
                ("/api/search?page=1000001", "page takes a whole number from 1 to 1000000"),
                ("/api/search?page=-3", "page takes"),
                ("/api/search?page=99999999999999999999999", "page takes"),
                ("/api/search?color=blue", "color takes a hex color"),
                ("/api/search?filter=loose", "filter takes one of high-recall, high-precision, none"),
                ("/api/search?sort=random", "sort takes one of score, taken, date, path"),
                ("/api/search?q=%ZZ", "malformed %-escape"),
                ("/api/search?limit=0", "limit takes"),
                ("/api/search?q=" + String(repeating: "a", count: 1001), "at most 1000 characters"),
            ]
            for (uri, message) in cases {
                let response = try await client.get(uri)
                #expect(response.status == .badRequest, "\(uri)")
                expectProtectiveHeaders(response)
                let text = (response.object["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(text.contains(message), "\(uri): \(text)")
            }
            // The page shows the message where the query was typed, with status 400.
            let page = try await client.get("/?q=dog%20AND%20(cat")
            #expect(page.status == .badRequest)
            #expect(page.text.contains("expected &#39;)&#39;"))
            // A parameter error on the page is the error page, never a stack trace.
            let badColor = try await client.get("/?color=nope")
            #expect(badColor.status == .badRequest)
            #expect(badColor.text.contains("color takes a hex color like 012ACF"))
        }
    }

    @Test func pagePastTheEndSaysSo() async throws {
        try await withGallery { _, client in
            let html = try await client.get("/?q=dog&page=50").text
            #expect(html.contains("Page 50 is past the last page (1)."))
        }
    }

    @Test func apiSearchHasTheCommandLineShapeAndIDs() async throws {
        try await withGallery { fixture, client in
            let object = try await client.get("/api/search?q=dog&limit=2").object
            for key in ["query", "total", "page", "pageCount", "limit", "results", "facets"] {
                #expect(object[key] != nil, "missing \(key)")
            }
            #expect(object["total"] as? Int == 4)
            #expect(object["pageCount"] as? Int == 2)
            let results = object["results"] as? [[String: Any]] ?? []
            #expect(results.count == 2)
            let first = results.first ?? [:]
            for key in ["path", "score", "size", "modified", "width", "height", "labels", "id", "url", "thumbnail"] {
                #expect(first[key] != nil, "missing results[].\(key)")
            }
            #expect(first["id"] as? Int == Int(fixture.id("golden.jpg")))
            #expect(abs((first["score"] as? Double ?? 0) - 0.95) < 0.005)
            let labels = first["labels"] as? [[String: Any]] ?? []
            #expect(labels.first?["identifier"] as? String == "animal")
            let facet = (object["facets"] as? [[String: Any]])?.first
            #expect(facet?["identifier"] != nil && facet?["displayName"] != nil && facet?["count"] != nil)
        }
    }

    @Test func colorSearchRanksByColorAndCombinesWithTheQuery() async throws {
        try await withGallery { fixture, client in
            let object = try await client.get("/api/search?color=2A3CC8").object
            let ids = (object["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            #expect(ids == [Int(fixture.id("rotated.jpg"))])
            #expect(object["color"] as? String == "2A3CC8")
            let combined = try await client.get("/api/search?q=dog&color=DCAA3C").object
            let golden = (combined["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            #expect(Set(golden) == [Int(fixture.id("golden.jpg")), Int(fixture.id("golden-small.jpg"))])
        }
    }

    @Test func suggestionsCompleteLabelNamesPresentLabelsFirst() async throws {
        try await withGallery { _, client in
            let suggestions = try await client.get("/api/suggest?q=ret").object["suggestions"] as? [[String: Any]] ?? []
            let identifiers = suggestions.compactMap { $0["identifier"] as? String }
            // Both retrievers match a word; the golden one is in two photos, the labrador in one.
            #expect(identifiers == ["golden_retriever", "labrador_retriever"])
            #expect(suggestions.first?["images"] as? Int == 2)
            let synonyms = try await client.get("/api/suggest?q=kit").object["suggestions"] as? [[String: Any]] ?? []
            #expect(synonyms.first?["identifier"] as? String == "cat")
            #expect(synonyms.first?["name"] as? String == "kitty")
            let none = try await client.get("/api/suggest?q=").object["suggestions"] as? [[String: Any]]
            #expect(none?.isEmpty == true)
        }
    }
}
