import ArgumentParser
import Classify
import Foundation

/// `classify-bench faces DIR`: time face detection per photo, and count the photos with faces.
struct FacesBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Measure face detection time per photo and how many photos get a face.",
        discussion: """
            Runs the face detector on up to --limit photos of a folder, one at a
            time on --threads compute threads, and prints the median and 90th
            percentile time per photo (decoding at the analysis resolution
            included), the median decode time alone, and how many photos got at
            least one face at the default threshold (on photos without people,
            the false-face rate). With --recognition, also times describing the
            faces of each photo that has any (the second decode, landmarks, chips
            and descriptors, as index does) and what that adds per photo of the
            folder. Build with `swift build -c release` first.

            Example:
              classify-bench faces ~/Pictures --limit 100 --threads 1
              classify-bench faces ~/Pictures --detector blazeFace
              classify-bench faces ~/Pictures --detector blazeFace --tiles 0.6 --analysis-short-side 512
              classify-bench faces ~/Pictures --detector blazeFace --recognition
            """)

    @Argument(help: "A folder of photos.") var folder: String
    @Option(help: "Photos timed (the first ones in name order).") var limit = 50
    @Option(help: "Compute threads for the networks.") var threads = 1
    @Option(help: "The detector: mtcnn (the default) or blazeFace.") var detector: FaceDetector.Kind = .mtcnn
    @Option(help: "Analysis resolution (shorter side, px; default: the detector's, 1000 or 256).") var analysisShortSide: Int?
    @Option(help: ArgumentHelp("Only files whose name starts with one of these prefixes (comma-separated).", valueName: "prefixes"))
    var only: String?
    @Option(help: "Only faces with at least this confidence (default: the detector's, 0.95 or 0.6).") var minConfidence: Float?
    @Option(help: "BlazeFace: also look at the whole photo through an input shaped like it, with this short side (rounded up to a multiple of 32, at least 224).") var enlarged: Int?
    @Option(help: "BlazeFace: the whole photo and square tiles of this fraction of its short side (0: the whole photo only; default: the detector's).") var tiles: Double?
    @Flag(help: "List the files that got faces.") var list = false
    @Flag(help: "Also time describing the faces found (Models/face-recognition), as index does.") var recognition = false

    func validate() throws {
        guard limit >= 1, threads >= 1, (analysisShortSide ?? 12) >= 12, (0..<1).contains(tiles ?? 0) else { throw ValidationError("--limit, --threads >= 1; --analysis-short-side >= 12; 0 <= --tiles < 1") }
    }

    func run() throws {
        ComputeThreads.configure(threads)
        var detector = FaceDetector(model: try FaceDetectorModel.shared(self.detector))
        if let analysisShortSide { detector.analysisShortSide = analysisShortSide }
        if let minConfidence { detector.minimumConfidence = minConfidence }
        if let tiles { detector.views = tiles > 0 ? .tiled(side: tiles) : .whole }
        if let enlarged { detector.views.shortSide = enlarged }
        let analysisShortSide = detector.analysisShortSide, minConfidence = detector.minimumConfidence
        let root = URL(fileURLWithPath: folder, isDirectory: true)
        let files = try FacesBenchCommand.photos(in: root, only: only, limit: limit)
        let recognizer = recognition ? try FaceRecognizer.shared() : nil
        var times: [Double] = [], decodeTimes: [Double] = [], withFaces = 0, faceCount = 0, failed = 0
        var recognitionTimes: [Double] = [], described = 0
        for file in files {
            let url = root.appending(path: file)
            var start = DispatchTime.now().uptimeNanoseconds
            _ = try? detector.decoder.decode(contentsOf: url, minimumShortSide: analysisShortSide)
            decodeTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            start = DispatchTime.now().uptimeNanoseconds
            guard let result = try? detector.detect(contentsOf: url) else { failed += 1; continue }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            if !result.faces.isEmpty {
                withFaces += 1
                faceCount += result.faces.count
                if let recognizer, let bytes = try? detector.decoder.readFile(at: url) {
                    let start = DispatchTime.now().uptimeNanoseconds
                    described += recognizer.descriptors(for: result, decoding: bytes, with: detector.decoder).compactMap { $0 }.count
                    recognitionTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                if list {
                    BenchOutput.figures("\(file)  " + result.faces.map { String(format: "%.3f %.0fx%.0f at %.0f,%.0f", $0.confidence, $0.pixelBoundingBox.width, $0.pixelBoundingBox.height, $0.pixelBoundingBox.x, $0.pixelBoundingBox.y) }.joined(separator: ", "))
                }
            }
        }
        guard !times.isEmpty else { throw ValidationError("no photo could be read in \(folder)") }
        func percentile(_ values: [Double], _ p: Double) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * p))] }
        BenchOutput.figures("\(self.detector.rawValue): " + String(
            format: "%d photos (%d failed), analysis short side %d, min confidence %.2f, %d thread(s): median %.1f ms, p90 %.1f ms per photo (decode alone median %.1f ms); %d photos with faces (%.1f%%), %d faces",
            times.count, failed, analysisShortSide, minConfidence, threads, percentile(times, 0.5), percentile(times, 0.9), percentile(decodeTimes, 0.5),
            withFaces, 100 * Double(withFaces) / Double(times.count), faceCount))
        if recognizer != nil, !recognitionTimes.isEmpty {
            let total = recognitionTimes.reduce(0, +)
            BenchOutput.figures(String(
                format: "recognition: %d of %d faces described; per photo with faces median %.1f ms, p90 %.1f ms (second decode included); %.1f ms per photo of the folder on average",
                described, faceCount, percentile(recognitionTimes, 0.5), percentile(recognitionTimes, 0.9), total / Double(times.count)))
        }
    }
}

extension FacesBenchCommand {
    /// The image files of a folder in name order, those whose name starts with one of the
    /// comma-separated `only` prefixes (all when nil), at most `limit`.
    static func photos(in root: URL, only: String?, limit: Int) throws -> [String] {
        let prefixes = only.map { $0.split(separator: ",").map(String.init) }
        return Array(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
            .filter { ImageFileWalker.imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .filter { name in prefixes.map { $0.contains { name.hasPrefix($0) } } ?? true }
            .prefix(limit))
    }
}

extension FaceDetector.Kind: ExpressibleByArgument {}
