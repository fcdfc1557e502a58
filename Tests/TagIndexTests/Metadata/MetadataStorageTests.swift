import Foundation
import Testing
@testable import TagIndex

/// The metadata row, the date ranges of `taken:` and the circles of `near:`.
@Suite struct MetadataStorageTests {
    static let full = IndexedMetadata(
        taken: TakenDate(local: "2023-06-01T14:30:05.120", utcOffsetMinutes: 120, source: .exif),
        latitude: 48.8584, longitude: 2.2945, altitude: 35, cameraMake: "Apple", cameraModel: "iPhone 13", lens: "wide",
        place: PlaceReference(id: 2_988_507, countryCode: "FR", admin1Code: "11"))

    @Test(arguments: [full, IndexedMetadata(), IndexedMetadata(taken: TakenDate(local: "1999-12-31T23:59:59", source: .file)),
                      IndexedMetadata(latitude: -22.9, longitude: -43.2, cameraModel: "X-T4")])
    func aRowReadsBackAsWritten(metadata: IndexedMetadata) {
        let values = MetadataStorage.values(of: metadata)
        #expect(values.count == MetadataStorage.columns.count - 1)
        #expect(MetadataStorage.metadata(from: values) == metadata)
    }

    @Test func aStoredRowReadsBackThroughTheIndex() throws {
        let index = try SQLiteIndex.inMemory()
        let stamp = ModelStamp(name: "m", version: "1")
        try index.replaceTaxonomy([LabelDefinition(identifier: "dog", displayName: "dog", parents: [])], model: stamp)
        try index.write(batch: [.classified(ImageClassification(
            path: "/p/a.jpg", size: 1, modificationTime: Date(timeIntervalSince1970: 0), contentHash: "h", width: 1, height: 1,
            model: stamp, observations: [LabelConfidence(identifier: "dog", confidence: 0.9)], metadata: Self.full))])
        #expect(try index.metadata(forPath: "/p/a.jpg") == Self.full)
        #expect(Self.full.taken?.iso8601 == "2023-06-01T14:30:05.120+02:00")
        #expect(Self.full.taken?.instant == Date(timeIntervalSince1970: 1_685_622_605.12))
        #expect(Self.full.cameraName == "Apple iPhone 13")
        #expect(IndexedMetadata(cameraMake: "Canon", cameraModel: "Canon EOS R5").cameraName == "Canon EOS R5")
    }

    @Test func takenRangesCoverTheirPeriods() {
        #expect(LocalTimeRange(parsing: "2019") == LocalTimeRange(lower: "2019-01-01", upper: "2020-01-01"))
        #expect(LocalTimeRange(parsing: "2019-12") == LocalTimeRange(lower: "2019-12-01", upper: "2020-01-01"))
        #expect(LocalTimeRange(parsing: "2024-02-29") == LocalTimeRange(lower: "2024-02-29", upper: "2024-03-01"))
        #expect(LocalTimeRange(parsing: "2019-06..2019-08") == LocalTimeRange(lower: "2019-06-01", upper: "2019-09-01"))
        #expect(LocalTimeRange(parsing: "..2019") == LocalTimeRange(lower: nil, upper: "2020-01-01"))
        #expect(LocalTimeRange(parsing: ">=2020") == LocalTimeRange(lower: "2020-01-01", upper: nil))
        #expect(LocalTimeRange(parsing: ">2020") == LocalTimeRange(lower: "2021-01-01", upper: nil))
        #expect(LocalTimeRange(parsing: "<2020-06") == LocalTimeRange(lower: nil, upper: "2020-06-01"))
        #expect(LocalTimeRange(parsing: "<=2020-06") == LocalTimeRange(lower: nil, upper: "2020-07-01"))
        #expect(LocalTimeRange(parsing: "9999") == LocalTimeRange(lower: "9999-01-01", upper: "9999-13"))
        for bad in ["", "..", "2019-13", "2023-02-29", "19", "20190", "2e23", "-2000", "2019-06-14T25:00", "tomorrow", ">="] {
            #expect(LocalTimeRange(parsing: bad) == nil, "\(bad)")
        }
        // A moment: the zone is dropped, bare times being the photo's own.
        #expect(LocalTimeRange.period("2024-01-31T12:00Z")?.start == "2024-01-31T12:00:00")
        // A local midnight in a zone with an offset.
        let paris = TimeZone(identifier: "Europe/Paris")!
        #expect(LocalTimeRange.instant("2024-07-01", in: paris) == Date(timeIntervalSince1970: 1_719_784_800))
    }

    @Test func nearReadsPositionsAndRadii() {
        #expect(NearbyArea(parsing: "48.85,2.35") == NearbyArea(latitude: 48.85, longitude: 2.35, radiusKilometres: 5))
        #expect(NearbyArea(parsing: "48.85, 2.35, 10km") == NearbyArea(latitude: 48.85, longitude: 2.35, radiusKilometres: 10))
        #expect(NearbyArea(parsing: "-22.95,-43.21,500m")?.radiusKilometres == 0.5)
        for bad in ["91,0", "0,181", "0", "a,b", "0,0,0km", "0,0,-1", "0,0,30000km", "0,0,1mi"] {
            #expect(NearbyArea(parsing: bad) == nil, "\(bad)")
        }
    }
}

/// `place:` and `country:` in the parser, with and without a resolver.
@Suite struct PlaceTermTests {
    struct Names: PlaceNameResolver {
        func matches(forPlaceNamed name: String) -> [PlaceMatch] {
            name.lowercased() == "paris" ? [.places([2_988_507]), .area(NearbyArea(latitude: 48.85, longitude: 2.35, radiusKilometres: 15))] : []
        }
        func countryCode(named name: String) -> String? { ["italy": "IT", "it": "IT"][name.lowercased()] }
    }

    @Test func namesResolveThroughTheResolver() throws {
        let query = try Query(parsing: "dog place:Paris country:italy", places: Names())
        #expect(query.filters.places == [
            [.places([2_988_507]), .area(NearbyArea(latitude: 48.85, longitude: 2.35, radiusKilometres: 15))], [.country("IT")],
        ])
        #expect(throws: QuerySyntaxError.self) { _ = try Query(parsing: "place:atlantis", places: Names()) }
        #expect(throws: QuerySyntaxError.self) { _ = try Query(parsing: "country:narnia", places: Names()) }
    }

    @Test func withoutThePlacesFileCountryCodesStillWork() throws {
        #expect(try Query(parsing: "country:fr", places: nil).filters.places == [[.country("FR")]])
        do {
            _ = try Query(parsing: "place:paris", places: nil)
            Issue.record("place: parsed without a resolver")
        } catch {
            #expect(error.message.contains("places file"))
        }
    }
}
