import Testing
@testable import Classify

@Suite struct DominantColorsTests {
    /// `width` x `height` pixels: the left `fraction` of the columns `left`, the rest `right`.
    static func split(_ left: (UInt8, UInt8, UInt8), _ right: (UInt8, UInt8, UInt8), fraction: Double, width: Int = 200, height: Int = 120) -> DecodedImage {
        var pixels: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width {
                let color = Double(x) < fraction * Double(width) ? left : right
                pixels += [color.0, color.1, color.2]
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels, format: .png)
    }

    @Test func twoColorImageGivesBothWithTheirShares() {
        let colors = DominantColors.extract(from: Self.split((1, 42, 207), (220, 20, 20), fraction: 0.7))
        #expect(colors.count == 2)
        #expect(abs(colors[0].weight - 0.7) < 0.03 && abs(colors[1].weight - 0.3) < 0.03)
        #expect(abs(Int(colors[0].blue) - 207) <= 3 && abs(Int(colors[0].red) - 1) <= 3)
        #expect(abs(Int(colors[1].red) - 220) <= 3)
        #expect(abs(colors.reduce(0) { $0 + $1.weight } - 1) < 1e-5)
        #expect(DominantColor(red: 1, green: 42, blue: 207, weight: 1).hex == "012ACF")
    }

    @Test func flatImageIsOneColorAndResultsAreDeterministic() {
        let flat = DominantColors.extract(from: Self.split((90, 160, 30), (90, 160, 30), fraction: 0.5, width: 7, height: 5))
        #expect(flat.count == 1 && flat[0].weight == 1)
        #expect(abs(Int(flat[0].green) - 160) <= 2)
        var pixels: [UInt8] = []
        var state: UInt32 = 1
        for _ in 0..<(64 * 48 * 3) { state = state &* 1_664_525 &+ 1_013_904_223; pixels.append(UInt8(state >> 24)) }
        let noisy = DecodedImage(width: 64, height: 48, pixels: pixels, format: .jpeg)
        let first = DominantColors.extract(from: noisy), second = DominantColors.extract(from: noisy)
        #expect(first == second)
        #expect(first.count <= DominantColors.maximumCount && !first.isEmpty)
    }

    @Test func labRoundTripsSRGB() {
        for (r, g, b) in [(0, 0, 0), (255, 255, 255), (1, 42, 207), (220, 20, 20), (128, 200, 64)] as [(UInt8, UInt8, UInt8)] {
            let back = Lab(red: r, green: g, blue: b).srgb()
            #expect(abs(Int(back.0) - Int(r)) <= 1 && abs(Int(back.1) - Int(g)) <= 1 && abs(Int(back.2) - Int(b)) <= 1)
        }
        #expect(abs(Lab(red: 255, green: 255, blue: 255).l - 100) < 0.1)
    }
}
