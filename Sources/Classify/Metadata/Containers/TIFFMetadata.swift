/// TIFF and TIFF-based camera raw files (DNG, CR2, NEF, ARW, PEF, ORF, RW2, ...): the file is
/// itself the EXIF structure, IFD0 at its start, with the XMP packet in IFD0 tag 700. Read in
/// place, without copying the file.
enum TIFFMetadata {
    static func read(_ bytes: UnsafeRawBufferPointer) -> PhotoMetadata {
        ExifReader.metadata(inBlock: bytes)
    }
}
