import CClassifyCodecs
import Foundation
import Testing

@testable import Classify

/// HEIC and AVIF grids are decoded one tile at a time (`heif_tiled_grid.c`): each tile handed to
/// libheif alone, a band of tile rows reduced at a time, the grid's irot and imir returned as an
/// orientation. The reference is libheif's own decode of the whole grid
/// (`CLS_HEIF_GRIDS_WHOLE`): the upright pixels must be the same bytes at every scale, for every
/// order of rotation and mirroring, and for any region.
@Suite("Tiled grid decoding")
struct TiledGridDecodingTests {
    static let grids = [
        "heic-grid.heic", "heic-grid-irot.heic", "heic-grid-imir.heic", "heic-grid-irot-imir.heic",
        "heic-grid-imir-irot.heic", "heic-grid-3x2.heic", "avif-grid.avif",
    ]

    static func bytes(_ file: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/formats"))
        return try Data(contentsOf: url)
    }

    static func coding(_ file: String) -> (coding: cls_heif_coding, format: ImageFormat) {
        file.hasSuffix(".avif") ? (CLS_HEIF_AV1, .avif) : (CLS_HEIF_HEVC, .heif)
    }

    static func hasDecoder(_ file: String) -> Bool {
        let available = ImageDecoder.availableFormats.contains(coding(file).format)
        if !available { print("skipped \(file): this libheif has no decoder for it") }
        return available
    }

    /// `file` decoded with `grids`, upright.
    static func decode(_ file: String, _ request: DecodingRequest, grids: cls_heif_grids) throws -> (DecodedImage, ImageCrop?) {
        let data = try bytes(file)
        let (coding, format) = Self.coding(file)
        let image = try data.withUnsafeBytes { raw in
            try HEIFDecoding.decode(raw, request, coding: coding, format: format, grids: grids)
        }
        return (image.oriented(), image.uprightCrop)
    }

    @Test(arguments: grids, [nil, 40, 20, 10])
    func tileByTileIsLibheifsPicture(file: String, minimumShortSide: Int?) throws {
        guard Self.hasDecoder(file) else { return }
        let request = DecodingRequest(minimumShortSide: minimumShortSide, maximumPixelCount: 100_000_000)
        let (tiled, _) = try Self.decode(file, request, grids: CLS_HEIF_GRIDS_TILE_BY_TILE)
        let (whole, _) = try Self.decode(file, request, grids: CLS_HEIF_GRIDS_WHOLE)
        #expect((tiled.width, tiled.height) == (whole.width, whole.height), "\(file)")
        #expect((tiled.originalWidth, tiled.originalHeight) == (whole.originalWidth, whole.originalHeight), "\(file)")
        #expect(tiled.pixels == whole.pixels, "\(file) at a short side of \(minimumShortSide ?? 0)")
    }

    /// Regions across tile edges, at the edges of the picture, and one pixel: the same pixels and
    /// the same place in the upright picture as libheif's whole decode cut the same way.
    @Test(arguments: grids)
    func regionsAreLibheifsPixels(file: String) throws {
        guard Self.hasDecoder(file) else { return }
        let regions = [
            PixelRect(x: 50, y: 30, width: 30, height: 30), PixelRect(x: 0, y: 0, width: 20, height: 10),
            PixelRect(x: 60, y: 70, width: 200, height: 200), PixelRect(x: 63, y: 63, width: 1, height: 1),
        ]
        for region in regions {
            for minimum in [nil, 20] as [Int?] {
                let request = DecodingRequest(minimumShortSide: minimum, maximumPixelCount: 100_000_000, region: region)
                let (tiled, tiledCrop) = try Self.decode(file, request, grids: CLS_HEIF_GRIDS_TILE_BY_TILE)
                let (whole, wholeCrop) = try Self.decode(file, request, grids: CLS_HEIF_GRIDS_WHOLE)
                #expect(tiledCrop == wholeCrop, "\(file) \(region)")
                #expect(tiled.pixels == whole.pixels && tiled.width == whole.width, "\(file) \(region) at \(minimum ?? 0)")
            }
        }
    }

    /// A region decodes only the tiles under it: with the bottom-right tile's parameter sets
    /// removed (its `hvcC` claims no arrays), the whole grid fails, tile by tile as libheif does,
    /// and the top-left corner still decodes.
    @Test func aRegionDecodesOnlyItsTiles() throws {
        let file = "heic-grid.heic"
        guard Self.hasDecoder(file) else { return }
        var bytes = [UInt8](try Self.bytes(file))
        let hvcC = Array("hvcC".utf8)
        let configurations = (0..<(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == hvcC }
        try #require(configurations.count == 4, "one per tile")
        bytes[configurations[3] + 4 + 22] = 0  // numOfArrays, after the 22 bytes of the record's header
        func decode(_ region: PixelRect?, grids: cls_heif_grids) throws -> DecodedImage {
            let request = DecodingRequest(minimumShortSide: nil, maximumPixelCount: 1_000_000, region: region)
            return try bytes.withUnsafeBytes { raw in
                try HEIFDecoding.decode(raw, request, coding: CLS_HEIF_HEVC, format: .heif, grids: grids).oriented()
            }
        }
        for grids in [CLS_HEIF_GRIDS_TILE_BY_TILE, CLS_HEIF_GRIDS_WHOLE] {
            #expect(throws: ImageDecodingError.self, "grids \(grids.rawValue)") { try decode(nil, grids: grids) }
        }
        let corner = try decode(PixelRect(x: 4, y: 4, width: 40, height: 40), grids: CLS_HEIF_GRIDS_TILE_BY_TILE)
        #expect((corner.width, corner.height) == (40, 40))
        let red = (Int(corner.pixels[0]), Int(corner.pixels[1]), Int(corner.pixels[2]))
        #expect(abs(red.0 - 220) <= 24 && abs(red.1 - 30) <= 24 && abs(red.2 - 30) <= 24, "\(red)")
    }

    /// What a decode holds: one tile and one band of tile rows of a 60-MP grid, not its 60 million
    /// pixels; a picture that is not a grid, and a grid decoded whole, hold all of theirs.
    @Test func aGridHoldsOneTileAndOneBand() throws {
        for (file, tiled, whole) in [
            ("heic-grid-60mp.heic", 512 * 512 + 512 * 8944, 8944 * 6708), ("heic-plain.heic", 48 * 32, 48 * 32),
            ("heic-clap.heic", 48 * 32, 48 * 32), ("avif-grid-60mp.avif", 512 * 512 + 512 * 8944, 8944 * 6708),
        ] {
            guard Self.hasDecoder(file) else { continue }
            let data = try Self.bytes(file)
            let coding = Self.coding(file).coding
            for (grids, expected) in [(CLS_HEIF_GRIDS_TILE_BY_TILE, tiled), (CLS_HEIF_GRIDS_WHOLE, whole)] {
                let held = data.withUnsafeBytes { raw -> UInt64 in
                    var decoder: OpaquePointer?
                    var info = cls_image_info()
                    var message = cls_message()
                    let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    guard cls_heif_decoder_open(base, raw.count, coding, 100_000_000, 0, 256, grids, &decoder, &info, &message) == CLS_OK
                    else { return 0 }
                    defer { cls_heif_decoder_close(decoder) }
                    return cls_heif_decoder_pixels_held(decoder)
                }
                #expect(held == UInt64(expected), "\(file), grids \(grids.rawValue)")
            }
        }
    }

    /// The tiles of a row decoded on 1 to 5 threads (at most 4 are used) give the same bytes, and
    /// each thread holds a tile of its own.
    @Test(arguments: [("heic-grid-3x2.heic", 3, 96 * 64), ("heic-grid-60mp.heic", 18, 512 * 512), ("avif-grid.avif", 2, 64 * 64)])
    func threadsGiveTheSamePixels(file: String, columns: Int, tilePixels: Int) throws {
        guard Self.hasDecoder(file) else { return }
        let data = try Self.bytes(file)
        let coding = Self.coding(file).coding
        var first: [UInt8]?
        for threads: Int32 in 1...5 {
            let tile = UInt64(tilePixels)
            let (pixels, held) = try data.withUnsafeBytes { raw throws -> ([UInt8], UInt64) in
                var decoder: OpaquePointer?
                var info = cls_image_info()
                var message = cls_message()
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let opened = cls_heif_decoder_open(
                    base, raw.count, coding, 100_000_000, 0, 256, CLS_HEIF_GRIDS_TILE_BY_TILE, &decoder, &info, &message)
                defer { cls_heif_decoder_close(decoder) }
                try #require(opened == CLS_OK)
                let oneThread = cls_heif_decoder_pixels_held(decoder)
                cls_heif_decoder_set_threads(decoder, threads)
                let held = cls_heif_decoder_pixels_held(decoder)
                let count = Int(info.output_width) * Int(info.output_height) * 3
                var pixels = [UInt8](repeating: 0, count: count)
                let status = pixels.withUnsafeMutableBufferPointer { cls_heif_decoder_read_pixels(decoder, $0.baseAddress, count, &message) }
                try #require(status == CLS_OK)
                return (pixels, held - oneThread)
            }
            if let first { #expect(pixels == first, "\(file) on \(threads) threads") } else { first = pixels }
            // A tile more per thread, for at most 4 threads and one per column.
            let extraTiles = UInt64(min(Int(threads), 4, columns) - 1)
            #expect(held == extraTiles * tile, "\(file): \(held) more pixels held on \(threads) threads than on one")
        }
    }

    /// The 60-MP grids decode tile by tile to the picture their one tile repeats: the quadrants
    /// of the tile at each tile's place, cut at the output size.
    @Test(arguments: ["heic-grid-60mp.heic", "avif-grid-60mp.avif"])
    func largeGridDecodes(file: String) throws {
        guard Self.hasDecoder(file) else { return }
        let request = DecodingRequest(minimumShortSide: 256, maximumPixelCount: 100_000_000)
        let (image, _) = try Self.decode(file, request, grids: CLS_HEIF_GRIDS_TILE_BY_TILE)
        #expect((image.width, image.height) == (1118, 839))  // 8944 x 6708 / 8
        #expect((image.originalWidth, image.originalHeight) == (8944, 6708))
        // Tile (column 3, row 2) at 1/8 is 64 x 64 output pixels from (192, 128); its quadrants'
        // centres: red, green, blue, white.
        let expected: [(Int, Int, (Int, Int, Int))] = [
            (192 + 16, 128 + 16, (220, 30, 30)), (192 + 48, 128 + 16, (30, 200, 40)),
            (192 + 16, 128 + 48, (30, 40, 210)), (192 + 48, 128 + 48, (250, 250, 250)),
        ]
        for (x, y, color) in expected {
            let at = (y * image.width + x) * 3
            let got = (Int(image.pixels[at]), Int(image.pixels[at + 1]), Int(image.pixels[at + 2]))
            #expect(abs(got.0 - color.0) <= 24 && abs(got.1 - color.1) <= 24 && abs(got.2 - color.2) <= 24, "\(file) at \(x),\(y): \(got)")
        }
    }

    /// Every byte of a grid's boxes overwritten in turn: each decode either fails with an error or
    /// gives a picture, and never crashes (tiles pointing outside the file, a grid of more tiles
    /// than it names, sizes of 0 are refused or left to libheif).
    @Test(arguments: ["heic-grid-irot.heic", "avif-grid.avif"])
    func damagedBoxesNeverCrash(file: String) throws {
        guard Self.hasDecoder(file) else { return }
        let original = [UInt8](try Self.bytes(file))
        // The meta box: everything before the first tile's coded bytes, but for the codec's own
        // configuration boxes (libheif's and the codec's to check, and the fuzzer's).
        func find(_ type: String, from start: Int = 0) -> Int? {
            (start..<(original.count - 4)).first { Array(original[$0..<($0 + 4)]) == Array(type.utf8) }
        }
        let mdat = try #require(find("mdat"))
        var configurations = Set<Int>()
        var at = 0
        while let found = find(file.hasSuffix(".avif") ? "av1C" : "hvcC", from: at), found < mdat {
            let size = original[(found - 4)..<found].reduce(0) { $0 << 8 | Int($1) }
            configurations.formUnion((found + 4)..<(found - 4 + size))
            at = found + 4
        }
        let (coding, format) = Self.coding(file)
        var decoded = 0, refused = 0
        for position in 0..<mdat where !configurations.contains(position) {
            for value: UInt8 in [0, 0xFF, original[position] &+ 1] where value != original[position] {
                var damaged = original
                damaged[position] = value
                let request = DecodingRequest(minimumShortSide: position % 2 == 0 ? nil : 20, maximumPixelCount: 1_000_000)
                do {
                    _ = try damaged.withUnsafeBytes { raw in
                        try HEIFDecoding.decode(raw, request, coding: coding, format: format).oriented()
                    }
                    decoded += 1
                } catch {
                    refused += 1
                }
            }
        }
        #expect(decoded > 0 && refused > 0, "\(file): \(decoded) decoded, \(refused) refused")
    }
}
