import ArgumentParser
import Classify
import ClassifyBenchmarks
import Foundation

/// `classify-bench face-recall DIR`: recall of BlazeFace's views against MTCNN by face size.
struct FaceRecallBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face-recall",
        abstract: "Measure face recall of BlazeFace views against MTCNN by face size.",
        discussion: """
            Builds a recall set in memory from the photos of a folder: the faces
            MTCNN (at its default 0.95) or BlazeFace (tiles, at the photo's own
            size) finds in each photo at least --min-face px large, less the ones
            listed in --reject after review; then, for each face and each
            --fractions size, a 4:3 canvas cut from the photo and padded with
            grey so that the face is that fraction of the canvas's short side.
            Every detector looks at every canvas; a face counts as found when a
            detected box matches it (IoU >= 0.3, or each box's center inside the
            other). Prints, per size, the faces found by MTCNN and by each
            --blaze variant at each --thresholds value.

            A variant is VIEWS@SHORTSIDE: `whole` (one view of the photo) or
            `tilesF` (the whole photo and square tiles of F times its short
            side), read at SHORTSIDE px on the short side; `thorough` is the
            whole view with MTCNN's faces added as `index --faces thorough`
            adds them (the threshold applies to BlazeFace's faces; `thoroughT`
            keeps MTCNN's faces of confidence T or more, default 0.95 as in
            `index`).

            Review: --crops DIR writes each face's neighbourhood as
            FILE#K.jpg; list the false ones in a --reject file, one FILE#K a line.

            Example:
              classify-bench face-recall ~/photos-with-people --crops /tmp/crops
              classify-bench face-recall DIR --reject rejects.txt --blaze whole@256,tiles0.6@512
            """)

    @Argument(help: "A folder of photos with people in some.") var folder: String
    @Option(help: "Photos read (the first ones in name order).") var limit = 10_000
    @Option(help: ArgumentHelp("Only files whose name starts with one of these prefixes (comma-separated).", valueName: "prefixes"))
    var only: String?
    @Option(help: "Face sizes, percent of the canvas's short side (comma-separated).") var fractions = "3,4,5,6,8,12,20"
    @Option(help: "BlazeFace variants, VIEWS@SHORTSIDE (comma-separated).") var blaze = "whole@256,tiles0.6@512"
    @Option(help: "BlazeFace thresholds reported (comma-separated).") var thresholds = "0.5,0.6,0.7"
    @Option(help: "Smallest face of the set, px in the source photo.") var minFace = 20.0
    @Option(help: "A file of FILE#K lines: faces rejected on review.") var reject: String?
    @Option(help: "Write each face's neighbourhood here as FILE#K.jpg for review.") var crops: String?
    @Flag(help: "List every face a BlazeFace variant misses at 0.6 while MTCNN finds it.") var list = false

    struct Variant {
        var name: String
        var detector: FaceDetector
        /// MTCNN's faces of at least this confidence are added to the detector's, as
        /// `index --faces thorough` adds them; nil: not added.
        var addsMTCNN: Float?
    }

    func run() throws {
        ComputeThreads.configure(1)
        let percents = fractions.split(separator: ",").compactMap { Double($0) }
        let cutoffs = thresholds.split(separator: ",").compactMap { Float($0) }
        guard !percents.isEmpty, percents.allSatisfy({ $0 > 0 && $0 < 100 }), !cutoffs.isEmpty else { throw ValidationError("--fractions in (0, 100), --thresholds numbers") }
        let mtcnn = FaceDetector(model: try FaceDetectorModel.shared(.mtcnn))
        let blazeModel = try FaceDetectorModel.shared(.blazeFace)
        var variants: [Variant] = []
        for spec in blaze.split(separator: ",") {
            let parts = spec.split(separator: "@")
            guard parts.count == 2, let side = Int(parts[1]), side >= 64 else { throw ValidationError("variant '\(spec)': VIEWS@SHORTSIDE") }
            var detector = FaceDetector(model: blazeModel)
            detector.analysisShortSide = side
            detector.minimumConfidence = cutoffs.min()!
            var addsMTCNN: Float?
            if parts[0].hasPrefix("thorough") {
                guard let t = parts[0] == "thorough" ? FaceDetector.defaultMinimumConfidence : Float(parts[0].dropFirst(8)), t > 0, t < 1 else {
                    throw ValidationError("variant '\(spec)': thoroughT takes T in (0, 1)")
                }
                addsMTCNN = t
                detector.views = .whole
            } else if parts[0] == "whole" { detector.views = .whole }
            else if parts[0].hasPrefix("tiles"), let f = Double(parts[0].dropFirst(5)), f > 0, f < 1 { detector.views = .tiled(side: f) }
            else if parts[0].hasPrefix("enlarged"), let s = Int(parts[0].dropFirst(8)), s >= 192 { detector.views = .enlarged(shortSide: s) }
            else { throw ValidationError("variant '\(spec)': views are whole, thorough, tilesF or enlargedS (S >= 192 pixels)") }
            variants.append(Variant(name: String(spec), detector: detector, addsMTCNN: addsMTCNN))
        }
        var truthBlaze = FaceDetector(model: blazeModel)
        truthBlaze.analysisShortSide = 100_000
        truthBlaze.views = .tiled(side: 0.5)
        let rejected = Set(try reject.map { try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [])
        if let crops { try FileManager.default.createDirectory(atPath: crops, withIntermediateDirectories: true) }

        let root = URL(fileURLWithPath: folder, isDirectory: true)
        let files = try FacesBenchCommand.photos(in: root, only: only, limit: limit)
        // found[size][detector]: count; detector 0 = MTCNN, then variant v at cutoff c = 1 + v * cutoffs.count + c
        var found = [[Int]](repeating: [Int](repeating: 0, count: 1 + variants.count * cutoffs.count), count: percents.count)
        var faceCount = 0, photosWithFaces = 0, rejectedCount = 0
        for file in files {
            guard let image = try? ImageDecoder().decode(contentsOf: root.appending(path: file)) else {
                BenchOutput.progress("\(file): does not decode, skipped")
                continue
            }
            var faces = try FaceRecallSet.TruthFace.find(in: image, file: file, detectors: [mtcnn, truthBlaze]).filter { $0.size >= minFace }
            faces = faces.enumerated().compactMap { k, face -> FaceRecallSet.TruthFace? in
                if let crops, let bytes = try? JPEGEncoder(quality: 85).encode(FaceRecallSet.reviewCrop(of: image, box: face.box)) {
                    _ = FileManager.default.createFile(atPath: "\(crops)/\(file)#\(k).jpg", contents: Data(bytes))
                }
                if rejected.contains("\(file)#\(k)") { rejectedCount += 1; return nil }
                return face
            }
            guard !faces.isEmpty else { continue }
            photosWithFaces += 1
            for (k, face) in faces.enumerated() {
                faceCount += 1
                for (s, percent) in percents.enumerated() {
                    let (canvas, box) = FaceRecallSet.canvas(from: image, face: face, fraction: percent / 100, seed: UInt64(faceCount * 100 + s))
                    let mtcnnFaces = try mtcnn.detect(in: canvas)
                    let byMTCNN = mtcnnFaces.faces.contains { FaceRecallSet.matches($0.pixelBoundingBox, box) }
                    if byMTCNN { found[s][0] += 1 }
                    for (v, variant) in variants.enumerated() {
                        let faces = try variant.detector.detect(in: canvas)
                        let best = faces.faces.filter { FaceRecallSet.matches($0.pixelBoundingBox, box) }.map(\.confidence).max()
                        for (c, cutoff) in cutoffs.enumerated() {
                            // Thorough: MTCNN's faces that none of BlazeFace's kept at this cutoff outlines.
                            let added = variant.addsMTCNN.map { least in
                                FaceDetectionResult(width: canvas.width, height: canvas.height, faces: mtcnnFaces.faces.filter { $0.confidence >= least })
                                    .faces(notAmong: faces.faces.filter { $0.confidence >= cutoff }.map(\.pixelBoundingBox))
                                    .contains { FaceRecallSet.matches($0.pixelBoundingBox, box) }
                            } ?? false
                            if (best ?? -1) >= cutoff || added { found[s][1 + v * cutoffs.count + c] += 1 }
                        }
                        if list, byMTCNN, (best ?? -1) < 0.6 {
                            BenchOutput.figures("missed by \(variant.name) at \(Int(percent))%: \(file)#\(k) (" + String(format: "%.0f px, best %.2f)", face.size, Double(best ?? 0)))
                        }
                    }
                }
            }
            BenchOutput.progress("\(file): \(faces.count) face(s)")
        }
        BenchOutput.figures("recall set: \(faceCount) faces (>= \(Int(minFace)) px) in \(photosWithFaces) of \(files.count) photos, \(rejectedCount) rejected on review; canvases per face: \(percents.count)")
        var header = "size   MTCNN"
        for variant in variants { for cutoff in cutoffs { header += "  \(variant.name)>=" + String(format: "%.2f", Double(cutoff)) } }
        BenchOutput.figures(header)
        for (s, percent) in percents.enumerated() {
            var row = String(format: "%4.0f%%  %3d/%d", percent, found[s][0], faceCount)
            for v in variants.indices {
                for c in cutoffs.indices {
                    let n = found[s][1 + v * cutoffs.count + c]
                    row += String(format: "  %3d (%.0f%% of MTCNN)", n, found[s][0] > 0 ? 100 * Double(n) / Double(found[s][0]) : 0)
                }
            }
            BenchOutput.figures(row)
        }
    }
}
