import ArgumentParser
import Classify
import ClassifySupport
import Foundation

/// `classify-tool faces PATH...`: print the faces found in images.
struct FacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Print the faces found in images (files or folders, recursively).",
        discussion: """
            Faces are found on-device with the MTCNN detector in Models/mtcnn
            (or BlazeFace with --face-model Models/blazeface), in the upright
            image (EXIF/HEIF orientation applied). Per file: its path, width
            and height (upright) and the faces as x, y, width, height in pixels
            from the top-left corner, confidence and landmarks (MTCNN: eyes,
            nose, mouth corners; BlazeFace: eyes, nose, mouth, ears). A file
            that cannot be read or decoded is one failed row; the others still
            run. Exit status: 0 all done, 1 error, 2 some files failed.

            Examples:
              classify-tool faces photo.jpg
              classify-tool faces ~/Pictures --format jsonl --min-confidence 0.95
            """)

    @Argument(help: "Image files or folders.") var paths: [String]
    @Option(help: "Output format.") var format: FaceFormat = .table
    @Option(help: "Only faces with at least this confidence (default: the detector's, 0.95 for MTCNN, whose cascade itself keeps 0.7 and above; 0.6 for BlazeFace).") var minConfidence: Float?
    @Option(help: ArgumentHelp("Face detector directory, MTCNN or BlazeFace (default: $CLASSIFY_FACE_MODEL_DIR, else Models/mtcnn beside the model).", valueName: "dir"))
    var faceModel: String?
    @Flag(help: "Also look at hidden files and folders.") var includeHidden = false
    @OptionGroup var verbosity: VerbosityOptions

    enum FaceFormat: String, ExpressibleByArgument, CaseIterable { case table, json, jsonl }

    func validate() throws {
        guard minConfidence.map({ (0...1).contains($0) }) ?? true else { throw ValidationError("--min-confidence takes a value from 0 to 1") }
    }

    func run() async throws {
        verbosity.apply()
        let model = try faceModel.map { try FaceDetectorModel(contentsOf: URL(fileURLWithPath: $0, isDirectory: true)) } ?? FaceDetectorModel.shared()
        Terminal.debug("face detector: \(model.directory.standardizedFileURL.path)")
        var detector = FaceDetector(model: model)
        if let minConfidence { detector.minimumConfidence = minConfidence }
        let renderer = FaceRenderer(format: FaceRenderer.Format(rawValue: format.rawValue)!)
        if let header = renderer.header { Terminal.out(header) }
        var failures = 0, count = 0, skipped = 0
        var walker = ImageFileWalker(paths: paths, includeHidden: includeHidden)
        walker.reportsSkipped = true
        for entry in walker {
            let path: String
            let result: Result<FaceDetectionResult, ClassificationError>
            switch entry {
            case .skipped(let skippedPath):
                skipped += 1
                Terminal.debug("skipped (not an image): \(skippedPath)")
                continue
            case .file(let file):
                path = file.path
                result = Result { () throws(ClassificationError) in try detector.detect(contentsOf: URL(fileURLWithPath: file.path)) }
            case .problem(let problemPath, let reason):
                path = problemPath
                result = .failure(ClassificationError(stage: .read, reason: reason))
            }
            if case .failure = result { failures += 1 }
            Terminal.out(renderer.render(path: path, result: result, isFirst: count == 0))
            count += 1
        }
        if let footer = renderer.footer { Terminal.out(footer) }
        try Terminal.finishFileRun(count: count, failures: failures, skipped: skipped, paths: paths)
    }
}
