import Classify
import Foundation
import Testing

/// Every container's fixture (`Scripts/make-metadata-fixtures`, written by exiftool) decodes
/// with the date, position and camera exiftool wrote, read in the same pass as the pixels.
@Suite("Metadata fixtures")
struct MetadataFixtureTests {
    struct Expectation: CustomTestStringConvertible, Sendable {
        var file: String
        var format: ImageFormat
        var date: String?
        var source: DateTaken.Source? = .exifOriginal
        var latitude: Double?
        var longitude: Double?
        var altitude: Double? = nil
        var make: String? = nil
        var model: String? = nil
        var lens: String? = nil
        var testDescription: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(
            file: "jpeg-full.jpg", format: .jpeg, date: "2023-06-01T14:30:05.120+02:00", latitude: 48.8584,
            longitude: 2.2945, altitude: 35, make: "Apple", model: "iPhone 13",
            lens: "iPhone 13 back dual wide camera 5.1mm f/1.6"),
        Expectation(
            file: "heic-full.heic", format: .heif, date: "2024-02-10T09:15:30+01:00", latitude: 47.3769,
            longitude: 8.5417, altitude: 408, make: "Apple", model: "iPhone 13"),
        Expectation(
            file: "avif-south-west.avif", format: .avif, date: "2022-12-24T20:15:00-03:00", latitude: -22.9519,
            longitude: -43.2105, altitude: 700),
        Expectation(file: "png-exif.png", format: .png, date: "2021-03-04T05:06:07", latitude: 35.6586, longitude: 139.7454),
        Expectation(
            file: "webp-exif.webp", format: .webp, date: "2020-02-29T23:59:59+05:30", latitude: -33.8568,
            longitude: 151.2153, altitude: -10),
        Expectation(
            file: "tiff-digitized.tif", format: .tiff, date: "2019-07-14T08:00:00.5-07:00", source: .exifDigitized,
            latitude: 40.7484, longitude: -73.9857, make: "Canon", model: "Canon EOS R5"),
        Expectation(
            file: "dng-exif.dng", format: .raw, date: "2018-05-06T07:08:09", latitude: 64.1466, longitude: -21.9426,
            make: "Canon", model: "Canon EOS R5"),
        Expectation(file: "jpeg-bogus-zero.jpg", format: .jpeg, date: nil, source: nil),
        Expectation(file: "jpeg-bogus-month.jpg", format: .jpeg, date: "2023-01-02T03:04:05", source: .exifDigitized),
        Expectation(file: "jpeg-null-island.jpg", format: .jpeg, date: nil, source: nil),
        Expectation(file: "jpeg-gps-void.jpg", format: .jpeg, date: nil, source: nil),
        Expectation(
            file: "webp-xmp-only.webp", format: .webp, date: "2017-08-21T10:20:30.5-05:00", source: .xmp,
            latitude: 36.975, longitude: -89.204, make: "FUJIFILM", model: "X-T4"),
    ]

    static func url(_ file: String) throws -> URL {
        try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/metadata"))
    }

    /// A classification carries the metadata its decode read (no second look at the file).
    @Test func aClassificationCarriesTheMetadata() throws {
        let result = try ImageClassifier(model: ShippedModel.model).classify(data: Data(contentsOf: Self.url("jpeg-full.jpg")))
        #expect(result.metadata.dateTaken?.iso8601 == "2023-06-01T14:30:05.120+02:00")
        #expect(result.metadata.camera?.model == "iPhone 13")
        #expect(result.metadata.location != nil)
    }

    @Test(arguments: expectations)
    func decodesWithItsMetadata(_ expected: Expectation) throws {
        guard expected.format != .heif && expected.format != .avif || ImageDecoder.availableFormats.contains(expected.format)
        else {
            print("skipped \(expected.file): this libheif has no decoder for it")
            return
        }
        let image = try ImageDecoder().decode(contentsOf: Self.url(expected.file))
        #expect(image.format == expected.format)
        let metadata = image.metadata
        #expect(metadata.dateTaken?.iso8601 == expected.date)
        #expect(metadata.dateTaken?.source == expected.source)
        if let latitude = expected.latitude, let longitude = expected.longitude {
            let location = try #require(metadata.location)
            // exiftool stores seconds to 1/100 of the sexagesimal value or finer.
            #expect(abs(location.latitude - latitude) < 1e-5)
            #expect(abs(location.longitude - longitude) < 1e-5)
            #expect(location.altitude == expected.altitude)
        } else {
            #expect(metadata.location == nil)
        }
        #expect(metadata.camera?.make == expected.make)
        #expect(metadata.camera?.model == expected.model)
        #expect(metadata.camera?.lensModel == expected.lens)
    }

    @Test func exifWinsOverTheEmbeddedXMP() throws {
        // jpeg-full.jpg also carries XMP exif:DateTimeOriginal 2001-01-01T01:01:01.
        let image = try ImageDecoder().decode(contentsOf: Self.url("jpeg-full.jpg"))
        #expect(image.metadata.dateTaken?.year == 2023)
    }

    @Test func theSidecarFillsABareJPEG() throws {
        let url = try Self.url("sidecar.jpg")
        let image = try ImageDecoder().decode(contentsOf: url)
        #expect(image.metadata.isEmpty)
        let sidecar = try #require(XMPSidecarReader.metadata(forImageAt: url))
        let merged = sidecar.filling(from: image.metadata)
        #expect(merged.dateTaken?.iso8601 == "2016-05-04T03:02:01+09:00")
        #expect(merged.dateTaken?.source == .xmp)
        #expect(abs((merged.location?.latitude ?? 0) - 35.0116) < 1e-5)
        #expect(abs((merged.location?.longitude ?? 0) - 135.7681) < 1e-5)
        #expect(merged.location?.altitude == 50)
    }

    @Test func downscalingKeepsTheMetadata() throws {
        let image = try ImageDecoder().decode(contentsOf: Self.url("jpeg-full.jpg"))
        let smaller = image.downscaled(toFit: 16)
        #expect(smaller.metadata == image.metadata)
    }
}
