import Foundation

/// Writes a minimal safetensors file (F32 only), for tests that build tiny models on the fly.
enum SafeTensorsWriter {
    static func data(_ tensors: [(name: String, shape: [Int], values: [Float])]) -> Data {
        var header = "{"
        var offset = 0
        for (index, tensor) in tensors.enumerated() {
            let bytes = tensor.values.count * 4
            header += "\(index == 0 ? "" : ",")\"\(tensor.name)\":{\"dtype\":\"F32\",\"shape\":\(tensor.shape),\"data_offsets\":[\(offset),\(offset + bytes)]}"
            offset += bytes
        }
        header += "}"
        while header.utf8.count % 8 != 0 { header += " " }
        var data = Data()
        var length = UInt64(header.utf8.count).littleEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(contentsOf: Array(header.utf8))
        for tensor in tensors {
            for value in tensor.values {
                var bits = value.bitPattern.littleEndian
                withUnsafeBytes(of: &bits) { data.append(contentsOf: $0) }
            }
        }
        return data
    }
}

/// A new empty directory under the system temporary folder; callers remove it (`defer`).
func temporaryDirectory(_ name: String = #function) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appending(path: "classify-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
