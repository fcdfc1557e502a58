import CClassifyCodecs
import ClassifyTestSupport
import Testing

/// The 2x2 inverse DCT our coefficient controller runs on a 1/8-scale decode's 4:2:0 chroma
/// (`cls_jpeg_idct_2x2`): every path the CPU has gives the plain C reference's samples to the byte,
/// for runs of blocks of every length around the vector widths and for coefficients anywhere in
/// 16 bits (where the 16-bit arithmetic wraps and saturates as libjpeg-turbo's SSE2 transform's
/// does). Whole decodes against libjpeg's own are in `JPEGHuffmanDecoderTests`.
@Suite("JPEG 2x2 inverse DCT")
struct JPEGReducedTransformTests {
    static let paths: [cls_jpeg_idct_2x2_path] = [
        CLS_JPEG_IDCT_2X2_SSE2, CLS_JPEG_IDCT_2X2_AVX2, CLS_JPEG_IDCT_2X2_AVX512,
    ]

    /// The two output rows of `blocks` through `path`.
    static func transform(_ path: cls_jpeg_idct_2x2_path, _ blocks: [[Int16]], quant: [Int16]) -> [UInt8] {
        var row0 = [UInt8](repeating: 0, count: 2 * blocks.count), row1 = row0
        let storage = blocks.map { block in
            let pointer = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
            pointer.initialize(from: block, count: 64)
            return pointer
        }
        defer { storage.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<Int16>?] = storage.map { UnsafePointer($0) }
        cls_jpeg_idct_2x2(path, pointers, blocks.count, quant, &row0, &row1)
        return row0 + row1
    }

    /// Blocks whose coefficients fall in `range`, quantization steps in `steps`.
    static func blocks(seed: UInt64, count: Int, range: ClosedRange<Int16>, steps: ClosedRange<Int16>) -> ([[Int16]], [Int16]) {
        var random = SeededRandom(seed: seed)
        let quant = (0..<64).map { _ in Int16.random(in: steps, using: &random) }
        let blocks = (0..<count).map { _ in (0..<64).map { _ in Int16.random(in: range, using: &random) } }
        return (blocks, quant)
    }

    @Test(arguments: paths)
    func everyPathGivesTheReferenceSamples(path: cls_jpeg_idct_2x2_path) throws {
        guard cls_jpeg_idct_2x2_has_path(path) != 0 else {
            try Test.cancel("this CPU has no \(["scalar", "SSE2", "AVX2", "AVX-512 (BW)"][Int(path.rawValue)]): that path is not run")
        }
        for count in [1, 2, 3, 4, 5, 7, 8, 9, 13, 17] {
            for seed: UInt64 in 1...3 {
                // Photo-like coefficients, then any 16-bit values (the dequantization wraps, the passes saturate).
                for (range, steps) in [(Int16(-64)...64, Int16(1)...40), (Int16.min...Int16.max, Int16.min...Int16.max)] {
                    let (blocks, quant) = Self.blocks(seed: seed, count: count, range: range, steps: steps)
                    let reference = Self.transform(CLS_JPEG_IDCT_2X2_SCALAR, blocks, quant: quant)
                    #expect(Self.transform(path, blocks, quant: quant) == reference, "\(count) blocks, seed \(seed), \(range)")
                }
            }
        }
    }

    /// A block with only a DC coefficient comes out flat at its dequantized value over 8, rounded
    /// and range-limited, as libjpeg's 1x1 transform gives it (jidctred.c descales by 3 bits).
    @Test func aFlatBlockIsItsRoundedMean() {
        for dc in [-200, -17, -1, 0, 1, 3, 4, 5, 100, 1023] as [Int16] {
            var block = [Int16](repeating: 0, count: 64)
            block[0] = dc
            let quant = [Int16](repeating: 2, count: 64)
            let expected = UInt8(max(-128, min(127, (Int(dc) * 2 + 4) >> 3)) + 128)
            for path in [CLS_JPEG_IDCT_2X2_SCALAR] + Self.paths where cls_jpeg_idct_2x2_has_path(path) != 0 {
                #expect(Self.transform(path, [block], quant: quant) == [UInt8](repeating: expected, count: 4), "dc \(dc), path \(path.rawValue)")
            }
        }
    }

    /// A horizontal cosine (coefficient 1) makes the left column brighter than the right, a vertical
    /// one (coefficient 8) the top row brighter than the bottom, by the same amount.
    @Test func theFirstCoefficientsTiltTheBlock() {
        var horizontal = [Int16](repeating: 0, count: 64), vertical = horizontal
        horizontal[1] = 40
        vertical[8] = 40
        let quant = [Int16](repeating: 1, count: 64)
        let across = Self.transform(CLS_JPEG_IDCT_2X2_SCALAR, [horizontal], quant: quant)  // row 0: a b, row 1: c d
        let down = Self.transform(CLS_JPEG_IDCT_2X2_SCALAR, [vertical], quant: quant)
        #expect(across[0] > across[1] && across[0] == across[2] && across[1] == across[3])
        #expect(down[0] > down[2] && down[0] == down[1] && down[2] == down[3])
        #expect(Int(across[0]) - Int(across[1]) == Int(down[0]) - Int(down[2]))
    }

    @Test func theBestPathIsOneTheCPUHas() {
        #expect(cls_jpeg_idct_2x2_has_path(cls_jpeg_idct_2x2_best_path()) != 0)
        #expect(cls_jpeg_idct_2x2_has_path(CLS_JPEG_IDCT_2X2_SCALAR) != 0)
    }
}
