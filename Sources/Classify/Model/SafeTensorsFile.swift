import CClassifyKernels
import Foundation

/// A read-only view of a `.safetensors` file: an 8-byte little-endian header length, a JSON
/// header mapping tensor names to `dtype`, `shape` and `data_offsets`, then raw little-endian data.
///
/// The file is memory-mapped; tensors are read out as `[Float]` on demand. Only `F32` is
/// supported, which is what `Scripts/convert-model` writes.
///
/// ```swift
/// let weights = try SafeTensorsFile(contentsOf: directory.appending(path: "model.safetensors"))
/// let stem = try weights.floats("stem.weight", shape: [32, 3, 3, 3])
/// ```
struct SafeTensorsFile: Sendable {
    struct Entry: Sendable {
        var dtype: String
        var shape: [Int]
        var byteRange: Range<Int>
    }

    let fileName: String
    let entries: [String: Entry]
    let metadata: [String: String]
    private let bytes: MappedFile
    private let dataStart: Int

    init(contentsOf url: URL) throws(ModelLoadingError) {
        fileName = url.lastPathComponent
        do {
            bytes = try MappedFile(url: url)
        } catch {
            throw .unreadable(file: fileName, reason: "\(error)")
        }
        let size = bytes.count
        guard size >= 8 else { throw .malformed(file: fileName, reason: "file is \(size) bytes, shorter than the 8-byte header length") }
        let rawLength = bytes.withBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) }
        let headerLength = Int(min(rawLength, UInt64(Int.max / 2)))
        guard headerLength > 1, headerLength <= size - 8 else {
            throw .malformed(file: fileName, reason: "header length \(headerLength) does not fit in a \(size)-byte file")
        }
        dataStart = 8 + headerLength
        let headerData = bytes.withBytes { Data($0[8..<(8 + headerLength)]) }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any] else {
            throw .malformed(file: fileName, reason: "header is not a JSON object")
        }
        var entries: [String: Entry] = [:]
        var metadata: [String: String] = [:]
        let dataLength = size - dataStart
        for (name, value) in header {
            if name == "__metadata__" {
                for (key, item) in value as? [String: Any] ?? [:] { metadata[key] = item as? String }
                continue
            }
            guard let fields = value as? [String: Any],
                let dtype = fields["dtype"] as? String,
                let shape = fields["shape"] as? [Int],
                let offsets = fields["data_offsets"] as? [Int], offsets.count == 2
            else { throw .malformed(file: fileName, reason: "header entry '\(name)' lacks dtype, shape or data_offsets") }
            let begin = offsets[0], end = offsets[1]
            guard begin >= 0, begin <= end, end <= dataLength else {
                throw .malformed(file: fileName, reason: "tensor '\(name)' data [\(begin), \(end)) lies outside the \(dataLength)-byte data section (file truncated?)")
            }
            guard shape.allSatisfy({ $0 >= 0 }) else { throw .malformed(file: fileName, reason: "tensor '\(name)' has a negative dimension") }
            entries[name] = Entry(dtype: dtype, shape: shape, byteRange: begin..<end)
        }
        self.entries = entries
        self.metadata = metadata
    }

    /// Calls `body` with the tensor's values (checked like `floats`), read in place from the
    /// mapping when the host is little-endian and the data is 4-byte aligned (always, for files
    /// `Scripts/convert-model` writes), else from a copy. Model loading packs weights straight
    /// from here, so the 18 MB of weights are not first copied into arrays.
    func withFloats<Result>(
        _ name: String, shape: [Int], _ body: (UnsafeBufferPointer<Float>) throws(ModelLoadingError) -> Result
    ) throws(ModelLoadingError) -> Result {
        if entries[name]?.dtype == "F16" {
            let copy = try floats(name, shape: shape)
            return try copy.withUnsafeBufferPointer { buffer throws(ModelLoadingError) in try body(buffer) }
        }
        let start = try checkedStart(name, shape: shape)
        let count = shape.reduce(1, *)
        let direct: UnsafeBufferPointer<Float>? = bytes.withBytes { raw in
            guard UInt32(littleEndian: 1) == 1, let base = raw.baseAddress, (Int(bitPattern: base) + start) % 4 == 0 else { return nil }
            // The mapping lives as long as `bytes`, which `self` holds for the whole call.
            return UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: Float.self), count: count)
        }
        if let direct { return try body(direct) }
        let copy = try floats(name, shape: shape)
        return try copy.withUnsafeBufferPointer { buffer throws(ModelLoadingError) in try body(buffer) }
    }

    /// The tensor's values, after checking that it exists, is `F32` (or `F16`, widened exactly)
    /// and has exactly `shape`.
    func floats(_ name: String, shape: [Int]) throws(ModelLoadingError) -> [Float] {
        if entries[name]?.dtype == "F16" {
            let start = try checkedStart(name, shape: shape, dtype: "F16")
            let count = shape.reduce(1, *)
            return bytes.withBytes { raw in
                [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                    // In C, with F16C where the CPU has it: the recognizer's 5.6 million weights
                    // in about a millisecond (17 ms in a Swift loop).
                    if count > 0 { cls_halves_to_floats(raw.baseAddress! + start, count, buffer.baseAddress!) }
                    initialized = count
                }
            }
        }
        let start = try checkedStart(name, shape: shape)
        let count = shape.reduce(1, *)
        return bytes.withBytes { raw in
            [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard count > 0, let destination = buffer.baseAddress else { initialized = 0; return }
                if UInt32(littleEndian: 1) == 1 {
                    // The file's little-endian floats are the host's own: one bulk copy (the data
                    // may sit at any byte offset, so it is copied as bytes, never loaded as Float).
                    UnsafeMutableRawPointer(destination).copyMemory(from: raw.baseAddress! + start, byteCount: count * 4)
                } else {
                    for index in 0..<count {
                        let bits = raw.loadUnaligned(fromByteOffset: start + index * 4, as: UInt32.self)
                        destination[index] = Float(bitPattern: UInt32(littleEndian: bits))
                    }
                }
                initialized = count
            }
        }
    }

    /// The tensor's values, after checking that it exists, is `I32` and has exactly `shape`.
    func int32s(_ name: String, shape: [Int]) throws(ModelLoadingError) -> [Int32] {
        let start = try checkedStart(name, shape: shape, dtype: "I32")
        let count = shape.reduce(1, *)
        return bytes.withBytes { raw in
            (0..<count).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: start + $0 * 4, as: Int32.self)) }
        }
    }

    /// IEEE binary16 bits to a float, exactly: the magnitude moved to float position and scaled by
    /// 2^112 re-biases the exponent and normalizes subnormals in one multiply (fp16 weights hold
    /// no infinities or NaNs). The reference `cls_halves_to_floats` (which `floats` calls) is
    /// tested against on every kernel path.
    ///
    /// Usage: `let one = SafeTensorsFile.float(halfBits: 0x3C00)`
    static func float(halfBits: UInt16) -> Float {
        let magnitude = Float(bitPattern: UInt32(halfBits & 0x7FFF) << 13) * 0x1p112
        return halfBits & 0x8000 == 0 ? magnitude : -magnitude
    }

    /// Byte offset of the tensor's data in the file, after checking that it exists, has `dtype`
    /// (`F32`, `I32` or `F16`), has exactly `shape` and holds as many bytes as that needs.
    private func checkedStart(_ name: String, shape: [Int], dtype: String = "F32") throws(ModelLoadingError) -> Int {
        guard let entry = entries[name] else { throw .missingTensor(file: fileName, tensor: name) }
        guard entry.dtype == dtype else {
            throw .malformed(file: fileName, reason: "tensor '\(name)' has dtype \(entry.dtype); \(dtype) is expected")
        }
        guard entry.shape == shape else { throw .shapeMismatch(file: fileName, tensor: name, expected: shape, found: entry.shape) }
        let count = shape.reduce(1, *)
        guard entry.byteRange.count == count * (dtype == "F16" ? 2 : 4) else {
            throw .malformed(file: fileName, reason: "tensor '\(name)' holds \(entry.byteRange.count) bytes for \(count) values")
        }
        return dataStart + entry.byteRange.lowerBound
    }
}
