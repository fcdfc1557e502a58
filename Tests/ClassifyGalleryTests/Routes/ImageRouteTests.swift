import Classify
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ClassifyGallery

@Suite struct ImageRouteTests {
    @Test func detailPageShowsLabelsFactsColorsSimilarAndDuplicates() async throws {
        try await withGallery { fixture, client in
            let response = try await client.get("/images/\(fixture.id("golden-small.jpg"))")
            #expect(response.status == .ok)
            expectProtectiveHeaders(response)
            let html = response.text
            #expect(html.contains("<h1>golden-small.jpg</h1>"))
            // The picture is the upright preview, never the file.
            #expect(html.contains(#"<img src="/images/\#(fixture.id("golden-small.jpg"))/preview?v="#))
            #expect(!html.contains("src=\"/photos") && !html.contains("file://"))
            // Bars with numbers, each a search link: the classes by confidence, then the groups.
            let golden = html.range(of: "<span class=\"name\">golden retriever</span>")!, grass = html.range(of: "<span class=\"name\">grass</span>")!
            let animal = html.range(of: "<span class=\"name\">animal</span>")!, dog = html.range(of: "<span class=\"name\">dog</span>")!
            #expect(golden.lowerBound < grass.lowerBound && grass.lowerBound < animal.lowerBound && animal.lowerBound < dog.lowerBound)
            #expect(html.contains(#"<li class="kind-class"><a href="/?q=golden_retriever">"#))
            #expect(html.contains(#"<li class="kind-group"><a href="/?q=animal">"#))
            #expect(html.contains("<span class=\"value\">0.88</span>"))
            #expect(html.contains("<dd>400 × 300 (0.1 MP)</dd>"))
            #expect(html.contains("<dd>JPEG</dd>"))
            // The dominant color links to a color search.
            #expect(html.contains(#"<a href="/?color=DCAA3C""#))
            // golden.jpg is its near-duplicate and, larger, the keeper; the others are similar.
            #expect(html.contains("Near-duplicates"))
            #expect(html.contains(#"<li class="tile keeper"><a href="/images/\#(fixture.id("golden.jpg"))">"#))
            #expect(html.contains("This photo and 1 near-duplicate. The copy with the most pixels is marked “keep”; the others show their score against it."))
            #expect(html.contains("Similar photos"))
            #expect(html.contains(#"<a href="/images/\#(fixture.id("poodle.jpg"))">"#))
        }
    }

    /// The date taken, camera, place and position (a link to the spot on OpenStreetMap, which the
    /// page itself never loads); a photo that states no date shows its file time, marked.
    @Test func detailPageAndAPIShowWhenAndWhere() async throws {
        try await withGallery { fixture, client in
            let html = try await client.get("/images/\(fixture.id("golden.jpg"))").text
            #expect(html.contains("<dt>Taken</dt><dd>2023-06-01T14:30:05+02:00</dd>"))
            #expect(html.contains("<dt>Camera</dt><dd>Apple iPhone 13</dd>"))
            #expect(html.contains("<dt>Place</dt><dd>Paris, Île-de-France, France</dd>") || html.contains("<dt>Place</dt><dd>Paris, France</dd>"), "\(html)")
            #expect(html.contains(#"<a href="https://www.openstreetmap.org/?mlat=48.858400&amp;mlon=2.294500#map=15/48.858400/2.294500" rel="noopener noreferrer">48.85840, 2.29450 (35 m)</a>"#))
            #expect(!html.contains("<script src=\"https://") && !html.contains("<img src=\"https://"))
            let poodle = try await client.get("/images/\(fixture.id("poodle.jpg"))").text
            #expect(poodle.contains("(file time: the photo states no date)</dd>"))
            let api = try await client.get("/api/images/\(fixture.id("golden.jpg"))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(api.text.utf8)) as? [String: Any])
            #expect(json["taken"] as? String == "2023-06-01T14:30:05+02:00" && json["takenFrom"] as? String == "exif")
            #expect((json["place"] as? [String: Any])?["countryCode"] as? String == "FR")
            let search = try await client.get("/api/search?q=camera:iphone")
            let results = try #require((try JSONSerialization.jsonObject(with: Data(search.text.utf8)) as? [String: Any])?["results"] as? [[String: Any]])
            #expect(results.count == 1 && (results.first?["gps"] as? [String: Any])?["latitude"] as? Double == 48.8584)
        }
    }

    @Test func detailPageDrawsTheStoredFacesBehindASwitch() async throws {
        try await withGallery { fixture, client in
            let html = try await client.get("/images/\(fixture.id("poodle.jpg"))").text
            // A checkbox (on by default) shows or hides the outlines: plain CSS, no script.
            #expect(html.contains(#"<input type="checkbox" id="show-faces" class="switch" checked><label for="show-faces" class="switch-label">Show faces (1 face)</label>"#))
            // The overlay's coordinates are the upright image's pixels, letterboxed like the picture.
            #expect(html.contains(#"<svg class="faces" id="faces" viewBox="0 0 640 480" preserveAspectRatio="xMidYMid meet" aria-hidden="true"><rect x="200.0" y="100.0" width="120.0" height="140.0"><title>face 0.91</title></rect></svg>"#))
            let face = try #require((try await client.get("/api/images/\(fixture.id("poodle.jpg"))").object["faces"] as? [[String: Any]])?.first)
            #expect(face["x"] as? Double == 200 && face["width"] as? Double == 120 && face["confidence"] as? Double == 0.91)
            // A photo without faces stored has neither switch nor overlay, and no faces in the API.
            let golden = try await client.get("/images/\(fixture.id("golden.jpg"))").text
            #expect(!golden.contains("show-faces") && !golden.contains(#"class="faces""#))
            #expect(try await client.get("/api/images/\(fixture.id("golden.jpg"))").object["faces"] == nil)
        }
    }

    @Test func apiImageHasTheShowShapeAndSimilarTheSimilarShape() async throws {
        try await withGallery { fixture, client in
            let image = try await client.get("/api/images/\(fixture.id("rotated.jpg"))").object
            for key in ["path", "size", "modified", "indexed", "hasFeaturePrint", "labels", "contentHash", "width", "height", "model", "id", "format", "colors"] {
                #expect(image[key] != nil, "missing \(key)")
            }
            #expect(image["width"] as? Int == 600 && image["height"] as? Int == 800)
            #expect(image["format"] as? String == "JPEG")
            #expect((image["colors"] as? [[String: Any]])?.first?["hex"] as? String == "283CC8")
            let similar = try await client.get("/api/images/\(fixture.id("golden.jpg"))/similar?limit=3").object
            for key in ["total", "page", "pageCount", "limit", "results"] { #expect(similar[key] != nil, "missing \(key)") }
            let results = similar["results"] as? [[String: Any]] ?? []
            #expect(results.count == 3)
            #expect(results.first?["id"] as? Int == Int(fixture.id("golden-small.jpg")))
            #expect((results.first?["score"] as? Double ?? 0) > 0.95)
        }
    }

    @Test func unknownAndMalformedIDsAndTraversalReachNothing() async throws {
        try await withGallery { _, client in
            let uris = [
                "/images/999999", "/images/0", "/images/-1", "/images/abc", "/images/1.5",
                "/api/images/999999", "/api/images/abc", "/images/999999/thumbnail", "/images/abc/preview",
                "/images/..%2F..%2F..%2Fetc%2Fpasswd", "/images/%2e%2e/thumbnail", "/images/1/../../../etc/passwd",
                "/images/..%252F..%252Fetc%252Fpasswd/thumbnail", "/static/..%2Fgallery.css", "/static/../../etc/passwd",
                "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/etc/passwd", "/photos/beach/golden.jpg", "/api/nothing",
                "//etc/passwd", "/images/1/thumbnail/../../../../etc/passwd",
            ]
            for uri in uris {
                let response = try await client.get(uri)
                #expect(response.status == .notFound, "\(uri): \(response.status)")
                expectProtectiveHeaders(response)
                #expect(!response.text.contains("root:"), "\(uri) leaked a file")
                #expect(!response.text.contains("Fatal error") && !response.text.contains("Stack"), "\(uri)")
            }
            let api = try await client.get("/api/images/999999")
            #expect(api.headers[.contentType] == "application/json; charset=utf-8")
            #expect(((api.object["error"] as? [String: Any])?["message"] as? String)?.contains("No indexed image has the id 999999") == true)
            let page = try await client.get("/images/999999")
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("Not found"))
        }
    }

    @Test func onlyGETIsAnswered() async throws {
        try await withGallery { _, client in
            let response = try await client.executeRequest(uri: "/api/search?q=dog", method: .post, headers: [:], body: nil)
            #expect(response.status.code >= 400 && response.status.code < 500)
            expectProtectiveHeaders(response)
        }
    }

    @Test func deletedFileShowsWhyOnItsPage() async throws {
        try await withGallery { fixture, client in
            let response = try await client.get("/images/\(fixture.id("gone.jpg"))")
            #expect(response.status == .ok)
            #expect(response.text.contains("The file cannot be read any more"))
        }
    }

    @Test func failedFileShowsItsReason() async throws {
        try await withGallery { fixture, client in
            let response = try await client.get("/images/\(fixture.id("bad.jpg"))")
            #expect(response.status == .ok)
            #expect(response.text.contains("Could not be classified (decode): The data is not a JPEG or PNG image."))
        }
    }
}
