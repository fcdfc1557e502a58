extension ImageClassifier {
    /// Classifies an image file's bytes and, with a detector, finds its faces, decoding once when
    /// the detector's analysis resolution is not above the classifier's decode size (BlazeFace's
    /// 256 against the classifier's 256: the same pixels serve both) and twice otherwise. A
    /// detection that fails leaves the faces nil (not looked for) rather than failing the image.
    ///
    /// Usage: `let (result, faces) = try classifier.classify(data: bytes, findingFacesWith: detector)`
    public func classify(data bytes: [UInt8], findingFacesWith detector: FaceDetector?) throws(ClassificationError) -> (ClassificationResult, FaceDetectionResult?) {
        guard let detector else { return (try classify(data: bytes), nil) }
        guard let target = decodeTarget, detector.analysisShortSide <= target else {
            return (try classify(data: bytes), try? detector.detect(data: bytes))
        }
        try checkModelTakesImages()
        let image: DecodedImage
        do { image = try decoder.decode(bytes, minimumShortSide: target) } catch { throw ClassificationError(error) }
        return (classify(image), try? detector.detect(in: image))
    }
}
