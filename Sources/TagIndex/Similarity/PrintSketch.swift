import CClassifyKernels
import Foundation

/// A 4-bit sketch of a stored feature print, a quarter of its bytes, with a bound on how far any
/// dot product with it can be from the same dot product with the print.
///
/// Similar images on PostgreSQL read every print of the library from the server: 2,560 bytes
/// each, 256 MB for 100,000 images, whose transfer alone took longer than the search may. A first
/// pass over the sketches (656 bytes each) gives every image an interval that surely holds its
/// score, and only the few images whose interval reaches the best scores are read in full and
/// scored exactly (``SketchRanking``), so the page is the one the full scan gives.
///
/// Format, ``byteCount`` bytes: a 16-byte header of little-endian `offset`, `step` and `error`
/// (Float32) and `mode` (UInt32), then ``FeaturePrint/dimension``/2 bytes of 4-bit codes `c`.
/// With `f(n) = n` (mode bit 0 clear: even levels) or `n * n` (set: finer near the offset, where
/// most of a pooled feature's values lie), value k is `offset + step * f(c)`; with mode bit 1
/// set, code 0 is exactly zero and the other values take `offset + step * f(c - 1)` (about half
/// of a ReLU feature's values are zero, and the levels then span only the others). Each print
/// takes the mode with the smallest error. `error` is the Euclidean norm of print minus sketch (rounded up), so for a
/// unit query `q`, `|q . print - q . sketch| <= error` (Cauchy-Schwarz). Codes come in groups of
/// 32 values: byte j of a group's 16 holds value j in its low nibble and value 16 + j in its high
/// nibble (the layout `cls_sketch_dot_block` reads with one load per group).
///
/// Usage:
/// ```swift
/// PrintSketch.encode(halves, count: n, into: sketches)      // n prints -> n * byteCount bytes
/// PrintSketch.dot(probe: probe, sketches: sketches, count: n, into: scores)
/// let bound = PrintSketch.bound(of: sketch)                  // |exact - scores[r]| <= bound
/// ```
package enum PrintSketch {
    static let dimension = FeaturePrint.dimension
    static let headerBytes = Int(CLS_SKETCH_HEADER_BYTES)
    /// Bytes per sketch (656).
    package static let byteCount = headerBytes + dimension / 2

    /// Added to every bound for float rounding. Both the sketch's and the exact dot products sum
    /// 1,280 products of unit vectors in float (the vector kernels in 32 partial sums): their
    /// rounding is below 1e-5 in practice and 2e-4 at worst, well inside this.
    static let roundingSlack: Float = 1e-3

    /// Writes the sketches of `count` prints (``dimension`` binary16 values each, back to back)
    /// to `destination` (`count * byteCount` bytes).
    package static func encode(_ halves: UnsafeBufferPointer<UInt16>, count: Int, into destination: UnsafeMutableRawBufferPointer) {
        precondition(halves.count >= count * dimension && destination.count >= count * byteCount)
        var values = [Float](repeating: 0, count: dimension)
        var codes = [UInt8](repeating: 0, count: dimension)
        var bestCodes = [UInt8](repeating: 0, count: dimension)
        for row in 0..<count {
            for k in 0..<dimension { values[k] = FeaturePrint.float(fromHalfBits: halves[row * dimension + k]) }
            // Each of the four quantizers; the one with the smallest error wins.
            var best = (mode: UInt32(0), offset: Float(0), step: Float(0), squaredError: Double.infinity)
            for mode: UInt32 in 0..<4 {
                let (offset, step, squaredError) = quantize(values, mode: mode, into: &codes)
                if squaredError < best.squaredError {
                    best = (mode, offset, step, squaredError)
                    swap(&codes, &bestCodes)
                }
            }
            let sketch = destination.baseAddress! + row * byteCount
            let error = Float(best.squaredError.squareRoot()).nextUp
            sketch.storeBytes(of: best.offset.bitPattern.littleEndian, toByteOffset: 0, as: UInt32.self)
            sketch.storeBytes(of: best.step.bitPattern.littleEndian, toByteOffset: 4, as: UInt32.self)
            sketch.storeBytes(of: error.bitPattern.littleEndian, toByteOffset: 8, as: UInt32.self)
            sketch.storeBytes(of: best.mode.littleEndian, toByteOffset: 12, as: UInt32.self)
            let packed = sketch + headerBytes
            for group in 0..<(dimension / 32) {
                for j in 0..<16 {
                    let byte = bestCodes[group * 32 + j] | bestCodes[group * 32 + 16 + j] << 4
                    packed.storeBytes(of: byte, toByteOffset: group * 16 + j, as: UInt8.self)
                }
            }
        }
    }

    /// The codes of `values` under `mode` (bit 0: squared levels; bit 1: code 0 is exactly zero
    /// and the levels span the other values), the header's offset and step, and the squared
    /// distance of the sketch from the values (in Double, from the header's floats as stored).
    private static func quantize(_ values: [Float], mode: UInt32, into codes: inout [UInt8]) -> (offset: Float, step: Float, squaredError: Double) {
        let square = mode & 1 == 1, zeroCoded = mode & 2 == 2
        var low = Float.infinity, high = -Float.infinity
        for value in values where !(zeroCoded && value == 0) {
            low = min(low, value)
            high = max(high, value)
        }
        guard low <= high else {  // every value is zero (zero-coded): exact
            for k in codes.indices { codes[k] = 0 }
            return (0, 0, 0)
        }
        let levels: Float = zeroCoded ? 14 : 15
        let span = high - low
        let step = span > 0 ? (square ? span / (levels * levels) : span / levels) : 0
        var squaredError = 0.0
        for (k, value) in values.enumerated() {
            if zeroCoded && value == 0 {
                codes[k] = 0
                continue
            }
            var n: Float = 0
            if step > 0 {
                let t = (value - low) / step
                if square {
                    // Of the two levels around the square root, the nearer.
                    let root = min(levels, max(0, t.squareRoot().rounded(.down)))
                    n = root < levels && (root + 1) * (root + 1) - t < t - root * root ? root + 1 : root
                } else {
                    n = min(levels, max(0, t.rounded()))
                }
            }
            let level = Double(low) + Double(step) * Double(square ? n * n : n)
            var difference = Double(value) - level
            if zeroCoded && abs(Double(value)) < abs(difference) {
                codes[k] = 0
                difference = Double(value)
            } else {
                codes[k] = UInt8(n) + (zeroCoded ? 1 : 0)
            }
            squaredError += difference * difference
        }
        return (low, step, squaredError)
    }

    /// `out[r]` = the dot product of `probe` with sketch `r` of `count` (back to back).
    package static func dot(probe: UnsafePointer<Float>, sketches: UnsafeRawPointer, count: Int, into out: UnsafeMutablePointer<Float>) {
        cls_sketch_dot_block(probe, sketches.assumingMemoryBound(to: UInt8.self), count, dimension, out)
    }

    /// How far a unit query's dot product with the print can be from the one with `sketch`.
    package static func bound(of sketch: UnsafeRawPointer) -> Float {
        Float(bitPattern: UInt32(littleEndian: sketch.loadUnaligned(fromByteOffset: 8, as: UInt32.self))) + roundingSlack
    }
}
