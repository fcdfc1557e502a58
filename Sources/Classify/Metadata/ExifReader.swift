/// Reads ``PhotoMetadata`` from an EXIF block: IFD0 (Make, Model, XMP packet), the EXIF IFD
/// (dates, sub-seconds, offsets, lens) and the GPS IFD, through ``TIFFStructure``.
enum ExifReader {
    /// Tag numbers from EXIF 2.32 (CIPA DC-008-2019) and TIFF 6.0.
    enum Tag {
        static let make: UInt16 = 0x010F
        static let model: UInt16 = 0x0110
        static let orientation: UInt16 = 0x0112
        static let xmpPacket: UInt16 = 0x02BC
        static let exifIFD: UInt16 = 0x8769
        static let gpsIFD: UInt16 = 0x8825
        static let dateTimeOriginal: UInt16 = 0x9003
        static let dateTimeDigitized: UInt16 = 0x9004
        static let offsetTimeOriginal: UInt16 = 0x9011
        static let offsetTimeDigitized: UInt16 = 0x9012
        static let subSecTimeOriginal: UInt16 = 0x9291
        static let subSecTimeDigitized: UInt16 = 0x9292
        static let lensModel: UInt16 = 0xA434
    }

    /// Metadata of a TIFF-structured block (optionally after "Exif\0\0"); empty when the block
    /// is not one. An XMP packet in IFD0 (tag 700, as TIFF and DNG files carry it) fills what
    /// EXIF lacks.
    static func metadata(inBlock block: UnsafeRawBufferPointer) -> PhotoMetadata {
        guard var tiff = TIFFStructure(block), let ifd0 = tiff.ifd(at: tiff.firstDirectoryOffset) else {
            return PhotoMetadata()
        }
        let exifIFD = tiff.subdirectory(Tag.exifIFD, of: ifd0)
        let gpsIFD = tiff.subdirectory(Tag.gpsIFD, of: ifd0)
        let camera = CameraInfo(
            make: ifd0[Tag.make].flatMap(tiff.string), model: ifd0[Tag.model].flatMap(tiff.string),
            lensModel: exifIFD?[Tag.lensModel].flatMap(tiff.string))
        let metadata = PhotoMetadata(
            dateTaken: dateTaken(tiff, exifIFD: exifIFD, ifd0: ifd0),
            location: gpsIFD.flatMap { GPSReader.coordinate(tiff, $0) }, camera: camera)
        guard let packet = ifd0[Tag.xmpPacket].flatMap(tiff.rawBytes) else { return metadata }
        return metadata.filling(from: XMPReader.metadata(inPacket: Array(packet)))
    }

    /// The orientation tag of IFD0 (1...8), nil when missing or malformed.
    static func orientation(inBlock block: UnsafeRawBufferPointer) -> Int? {
        guard var tiff = TIFFStructure(block), let ifd0 = tiff.ifd(at: tiff.firstDirectoryOffset),
            let entry = ifd0[Tag.orientation], entry.count == 1, let value = tiff.unsignedIntegers(entry)?.first
        else { return nil }
        return Int(value)
    }

    /// DateTimeOriginal with its sub-seconds and offset, else DateTimeDigitized with theirs.
    /// TIFF/EP files (some DNGs) keep DateTimeOriginal in IFD0, so IFD0 is asked after the
    /// EXIF IFD. A present but bogus original falls through to the digitized date.
    private static func dateTaken(
        _ tiff: TIFFStructure, exifIFD: TIFFStructure.Directory?, ifd0: TIFFStructure.Directory
    ) -> DateTaken? {
        let directories = [exifIFD, ifd0].compactMap { $0 }
        let fields: [(date: UInt16, subsecond: UInt16, offset: UInt16, source: DateTaken.Source)] = [
            (Tag.dateTimeOriginal, Tag.subSecTimeOriginal, Tag.offsetTimeOriginal, .exifOriginal),
            (Tag.dateTimeDigitized, Tag.subSecTimeDigitized, Tag.offsetTimeDigitized, .exifDigitized),
        ]
        for field in fields {
            for directory in directories {
                guard let entry = directory[field.date], entry.type == TIFFType.ascii, let text = tiff.string(entry)
                else { continue }
                let subsecond = directory[field.subsecond].flatMap(tiff.string)
                let offset = directory[field.offset].flatMap(tiff.string)
                if let date = DateTaken.exif(text, subsecond: subsecond, offset: offset, source: field.source) {
                    return date
                }
            }
        }
        return nil
    }
}
