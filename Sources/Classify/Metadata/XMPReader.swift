import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads ``PhotoMetadata`` from an XMP packet (an embedded one or a sidecar file's text) with
/// Foundation's XMLParser: exif:DateTimeOriginal, else xmp:CreateDate (or
/// exif:DateTimeDigitized); exif:GPSLatitude / GPSLongitude in XMP's "48,51.5N" or
/// "48,51,30N" form with exif:GPSAltitude and GPSAltitudeRef; tiff:Make, tiff:Model and
/// exifEX:LensModel. Properties are found as attributes of rdf:Description or as elements,
/// by local name, so a packet using other prefixes for the same namespaces still reads.
/// Malformed XML gives what was read before the error; bad values are nil.
enum XMPReader {
    /// Packets larger than this are not photo metadata (real ones are a few KB; JPEG caps the
    /// embedded one at 64 KB).
    static let maximumPacketByteCount = 4 * 1024 * 1024

    static func metadata(inPacket packet: [UInt8]) -> PhotoMetadata {
        guard !packet.isEmpty, packet.count <= maximumPacketByteCount else { return PhotoMetadata() }
        // Packets end with padding and a trailer; the parser copes, but NULs would stop it.
        let text = withoutProcessingInstructions(packet.prefix { $0 != 0 })
        guard isPlainUTF8Text(text) else { return PhotoMetadata() }
        let collector = PropertyCollector()
        let parser = XMLParser(data: Data(text))
        parser.delegate = collector
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()
        var metadata = collector.properties.metadata
        metadata.faceRegions = collector.regions.regions
        return metadata
    }

    /// The bytes without `<?...?>` processing instructions (the `<?xpacket?>` wrapper and the
    /// XML declaration; nothing XMP needs). swift-corelibs-foundation's XMLParser traps on some
    /// malformed ones (found by MetadataFuzzTests), so none reach it; an unterminated one
    /// drops the rest of the packet.
    static func withoutProcessingInstructions(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let open = UInt8(ascii: "<"), question = UInt8(ascii: "?"), close = UInt8(ascii: ">")
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == open, index + 1 < bytes.endIndex, bytes[index + 1] == question {
                var end = index + 2
                while end + 1 < bytes.endIndex, !(bytes[end] == question && bytes[end + 1] == close) { end += 1 }
                guard end + 1 < bytes.endIndex else { break }
                index = end + 2
                continue
            }
            kept.append(bytes[index])
            index += 1
        }
        return kept
    }

    /// Whether `bytes` are valid UTF-8 without control characters other than tab and line
    /// breaks, as XMP must be (XMP Specification Part 1, 7.1). Anything else is damage, and
    /// swift-corelibs-foundation's XMLParser traps on some such input (MetadataFuzzTests found
    /// names and values with invalid bytes), so it never sees it.
    static func isPlainUTF8Text(_ bytes: [UInt8]) -> Bool {
        guard bytes.allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }), bytes.last != 0x7F else {
            return false
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The properties the reader knows, by local name, as their text.
    struct Properties {
        var values: [String: String] = [:]

        static let wanted: Set<String> = [
            "DateTimeOriginal", "CreateDate", "DateTimeDigitized", "GPSLatitude", "GPSLongitude", "GPSAltitude",
            "GPSAltitudeRef", "GPSStatus", "GPSDOP", "Make", "Model", "LensModel",
        ]

        mutating func record(_ qualifiedName: String, _ value: String) {
            let local = String(qualifiedName.split(separator: ":").last ?? "")
            guard Self.wanted.contains(local), values[local] == nil else { return }
            values[local] = value.trimmingSpaces
        }

        var metadata: PhotoMetadata {
            let date = values["DateTimeOriginal"].flatMap { DateTaken.xmp($0) }
                ?? (values["CreateDate"] ?? values["DateTimeDigitized"]).flatMap { DateTaken.xmp($0) }
            return PhotoMetadata(
                dateTaken: date, location: location,
                camera: CameraInfo(make: values["Make"], model: values["Model"], lensModel: values["LensModel"]))
        }

        /// The same rules as EXIF's GPS IFD (see ``GPSReader``): status "V" and a bare 0,0
        /// without fix evidence are unknown.
        private var location: GPSCoordinate? {
            guard values["GPSStatus"]?.uppercased() != "V",
                let latitude = values["GPSLatitude"].flatMap({ Self.angle($0, positive: "N", negative: "S") }),
                let longitude = values["GPSLongitude"].flatMap({ Self.angle($0, positive: "E", negative: "W") })
            else { return nil }
            if latitude == 0 && longitude == 0 && values["GPSStatus"]?.uppercased() != "A"
                && values["GPSDOP"].flatMap(Self.rational) == nil
            {
                return nil
            }
            var altitude = values["GPSAltitude"].flatMap(Self.rational)
            if values["GPSAltitudeRef"] == "1", let height = altitude { altitude = -height }
            return GPSCoordinate(latitude: latitude, longitude: longitude, altitude: altitude)
        }

        /// "DDD,MM.mmk" or "DDD,MM,SSk" (XMP Specification Part 2, GPSCoordinate), k the
        /// reference letter; nil for anything else.
        static func angle(_ text: String, positive: Character, negative: Character) -> Double? {
            guard let letter = text.last?.uppercased().first, letter == positive || letter == negative else { return nil }
            let parts = text.dropLast().split(separator: ",", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count) else { return nil }
            var numbers: [Double] = []
            for part in parts {
                guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                    let value = Double(part), value.isFinite
                else { return nil }
                numbers.append(value)
            }
            guard numbers.dropFirst().allSatisfy({ $0 < 60 }), numbers[0] <= 180, numbers[0] == numbers[0].rounded()
            else { return nil }
            let degrees = numbers[0] + numbers[1] / 60 + (numbers.count == 3 ? numbers[2] / 3600 : 0)
            return letter == negative ? -degrees : degrees
        }

        /// "123/10" or "12.3".
        static func rational(_ text: String) -> Double? {
            let parts = text.split(separator: "/")
            if parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 {
                let value = numerator / denominator
                return value.isFinite ? value : nil
            }
            return parts.count == 1 ? Double(parts[0]).flatMap { $0.isFinite ? $0 : nil } : nil
        }
    }

    /// Collects wanted properties from attributes and from leaf elements' text, and MWG face regions.
    private final class PropertyCollector: NSObject, XMLParserDelegate {
        static func localName(_ qualified: String) -> String { String(qualified.split(separator: ":").last ?? "") }

        var properties = Properties()
        var regions = FaceRegionCollector()
        private var openElement: String?
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            for (name, value) in attributes { properties.record(name, value) }
            regions.start(Self.localName(elementName), attributes: attributes)
            openElement = elementName
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if openElement != nil, text.utf8.count < 4096 { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            // Only a leaf (no child element since it opened) carries the value as its text.
            if openElement == elementName {
                properties.record(elementName, text)
                regions.leaf(Self.localName(elementName), text: text)
            }
            regions.end(Self.localName(elementName))
            openElement = nil
            text = ""
        }
    }
}
