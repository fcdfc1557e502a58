import Classify
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ClassifyGallery

/// The People pages and the gallery's writes: a POST without this browser session's form token
/// is a 403 and changes nothing; with it, naming a face makes a person that search, the People
/// page, the person's page and the photo's overlay show; off loopback, every request without the
/// access token is a 401, and the token in the URL becomes a cookie.
@Suite struct PeopleRouteTests {
    /// The session cookie a response sets, and the form token a page carries.
    static func session(_ response: TestResponse) throws -> (cookie: String, token: String) {
        let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix(CSRFMiddleware.cookieName + "=") })
        let value = String(cookie.dropFirst(CSRFMiddleware.cookieName.count + 1).prefix { $0 != ";" })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let token = try #require(response.text.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1)
        return ("\(CSRFMiddleware.cookieName)=\(value)", String(token))
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, form: String, cookie: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        return try await client.executeRequest(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    @Test func namingAFaceNeedsTheSessionTokenAndMakesAPerson() async throws {
        try await withGallery { fixture, client in
            let poodle = fixture.id("poodle.jpg")
            let page = try await client.get("/images/\(poodle)")
            #expect(page.status == .ok)
            #expect(page.text.contains("not recognised yet"))
            let (cookie, token) = try Self.session(page)

            // Without the cookie, with another token, or without one: refused, nothing recorded.
            for (form, sentCookie) in [("csrf=\(token)&person=Rex", nil), ("csrf=\(String(repeating: "0", count: 64))&person=Rex", cookie), ("person=Rex", cookie)] {
                let refused = try await Self.post(client, "/images/\(poodle)/faces/1/person", form: form, cookie: sentCookie)
                #expect(refused.status == .forbidden, "\(form)")
                expectProtectiveHeaders(refused)
            }
            #expect(try await client.get("/api/people").object["people"] as? [Any] != nil)
            #expect((try await client.get("/api/people").object["people"] as? [Any])?.isEmpty == true)
            // A GET never writes, whatever it carries.
            #expect(try await client.get("/images/\(poodle)/faces/1/person?csrf=\(token)&person=Rex").status != .seeOther)

            let named = try await Self.post(client, "/images/\(poodle)/faces/1/person", form: "csrf=\(token)&person=Rex+the+Dog", cookie: cookie)
            #expect(named.status == .seeOther && named.headers[.location] == "/images/\(poodle)", "\(named.text)")
            let people = try #require(try await client.get("/api/people").object["people"] as? [[String: Any]])
            #expect(people.count == 1 && people[0]["name"] as? String == "Rex the Dog" && people[0]["faces"] as? Int == 1)
            let id = try #require(people[0]["id"] as? Int)

            let list = try await client.get("/people")
            #expect(list.status == .ok && list.text.contains("Rex the Dog") && list.text.contains("/people/\(id)/face"))
            // The page counts the faces still waiting in the index (here none: the one face is Rex).
            #expect(list.text.contains("0 faces wait for a person"), "\(list.text)")
            let personPage = try await client.get("/people/\(id)", headers: [.cookie: cookie])
            #expect(personPage.status == .ok && personPage.text.contains("/images/\(poodle)"))
            let crop = try await client.get("/people/\(id)/face")
            #expect(crop.status == .ok && crop.headers[.contentType] == "image/jpeg" && crop.bytes.starts(with: [0xFF, 0xD8]))
            #expect(try await client.get("/?q=person:rex").text.contains("/images/\(poodle)"))
            #expect(try await client.get("/images/\(poodle)").text.contains(">Rex the Dog</text>"))

            // Renaming from the person's page; a merge with nobody is a 400 with a sentence.
            let renamed = try await Self.post(client, "/people/\(id)/name", form: "csrf=\(token)&name=Rex", cookie: cookie)
            #expect(renamed.status == .seeOther && renamed.headers[.location] == "/people/\(id)")
            #expect((try await client.get("/api/people").object["people"] as? [[String: Any]])?.first?["name"] as? String == "Rex")
            let merge = try await Self.post(client, "/people/\(id)/merge", form: "csrf=\(token)&with=Nobody", cookie: cookie)
            #expect(merge.status == .badRequest && merge.text.contains("No person is called"))
            // Hiding the face: it leaves every person.
            let hidden = try await Self.post(client, "/images/\(poodle)/faces/1/hide", form: "csrf=\(token)", cookie: cookie)
            #expect(hidden.status == .seeOther)
            #expect((try await client.get("/api/people").object["people"] as? [Any])?.isEmpty == true)
            #expect(try await client.get("/people/\(id)").status == .notFound)
            #expect(try await client.get("/images/\(poodle)/faces/9").status == .notFound)
        }
    }

    /// A stored face box belongs to the picture that was indexed: once the file holds another, its
    /// crop is the placeholder with a 409 saying why, never a cut at the old box.
    @Test func aFaceOfAFileChangedSinceIndexingIsNotCut() async throws {
        try await withGallery { fixture, client in
            let poodle = fixture.id("poodle.jpg")
            let before = try await client.get("/images/\(poodle)/faces/1")
            #expect(before.status == .ok && before.headers[.contentType] == "image/jpeg")
            let changed = try JPEGEncoder().encode(GalleryFixture.picture(width: 300, height: 200, top: [0, 0, 0], bottom: [255, 255, 255]))
            try Data(changed).write(to: fixture.photos.appending(path: "home/poodle.jpg"))
            let after = try await client.get("/images/\(poodle)/faces/1")
            #expect(after.status == .conflict)
            #expect(after.headers[.contentType] == "image/svg+xml" && after.headers[.cacheControl] == "no-store")
            let reason = after.headers[HTTPField.Name("X-Classify-Error")!] ?? ""
            #expect(reason.contains("has changed since it was indexed"), "\(reason)")
            // The photo itself is still shown as it is now.
            #expect(try await client.get("/images/\(poodle)/thumbnail").status == .ok)
        }
    }

    @Test func offLoopbackEveryRequestNeedsTheAccessToken() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let token = String(repeating: "ab", count: 32)
        try await fixture.application(accessToken: token).test(.router) { client in
            for uri in ["/", "/people", "/api/search?q=dog", "/images/\(fixture.id("poodle.jpg"))/thumbnail", "/?token=wrong"] {
                let refused = try await client.get(uri)
                #expect(refused.status == .unauthorized, "\(uri)")
                #expect(!refused.text.contains("poodle") && refused.text.contains("access token"), "\(uri)")
                expectProtectiveHeaders(refused)
            }
            let entered = try await client.get("/people?token=\(token)")
            #expect(entered.status == .seeOther && entered.headers[.location] == "/people")
            let cookie = try #require(entered.headers[values: .setCookie].first { $0.hasPrefix(AccessTokenMiddleware.cookieName + "=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let kept = "\(AccessTokenMiddleware.cookieName)=\(token)"
            #expect(try await client.get("/people", headers: [.cookie: kept]).status == .ok)
            #expect(try await client.get("/api/search?q=dog", headers: [.cookie: kept]).status == .ok)
            #expect(try await client.get("/", headers: [.cookie: "\(AccessTokenMiddleware.cookieName)=\(String(repeating: "cd", count: 32))"]).status == .unauthorized)
        }
    }
}
