import Classify
import ClassifyPeople
import ClassifyTestSupport
import Foundation

/// People grouping on synthetic descriptors (grouping N faces from scratch, adding M more, peak
/// memory) and face recognition per face on the astronaut fixture (landmarks, chip, descriptor).
///
/// The faces: people whose sizes fall off like a photo library's (a few people in thousands of
/// photos, many in a handful), plus strangers seen once.
///
/// ```swift
/// for line in try PeopleBenchmark.grouping(faces: 100_000, added: 1_000, threads: 0) { print(line) }
/// ```
package enum PeopleBenchmark {
    /// Groups `faces` synthetic faces from scratch, then adds `added` more; one line per figure.
    package static func grouping(faces faceCount: Int, added addedCount: Int, threads: Int) throws -> [String] {
        var lines: [String] = []
        let parameters = GroupingParameters(matchDistance: 0.6, minimumFaces: 3, dimension: 128, threads: threads)
        let all = library(faceCount + addedCount, seed: 42, prefix: "photo")
        let base = Array(all.prefix(faceCount)), added = Array(all.suffix(addedCount))
        lines.append("faces \(faceCount), then \(addedCount) more; threads \(threads == 0 ? ProcessInfo.processInfo.activeProcessorCount : threads)")
        lines.append(String(format: "memory after generating the descriptors: %.0f MB peak", peakMemoryMegabytes()))
        var grouper = try PeopleGrouper(parameters: parameters)
        var groups = PeopleGroups(people: [], unassigned: [], hidden: [], unappliedCorrections: [])
        let scratch = try seconds {
            try grouper.add(base)
            groups = grouper.groups()
        }
        lines.append(String(format: "from scratch: %.2f s wall, %.2f s CPU; %d people, %d unassigned", scratch.wall, scratch.cpu, groups.people.count, groups.unassigned.count))
        let incremental = try seconds {
            try grouper.add(added)
            groups = grouper.groups()
        }
        lines.append(String(format: "adding %d: %.2f s wall, %.2f s CPU; %d people, %d unassigned", addedCount, incremental.wall, incremental.cpu, groups.people.count, groups.unassigned.count))
        lines.append(String(format: "peak memory: %.0f MB", peakMemoryMegabytes()))
        return lines
    }

    /// Landmarks, chip and descriptor of the astronaut fixture's face, timed per face on this
    /// thread (kernel threads stay at 1); `root` is the package checkout.
    package static func recognition(repeats: Int, root: URL) throws -> [String] {
        let models = root.appending(path: "Models/face-recognition")
        let landmarkModel = try FaceLandmarkModel(contentsOf: models)
        let recognizer = try FaceDescriptorModel(contentsOf: models)
        let image = try ImageDecoder().decode(contentsOf: root.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png"))
        let box = PixelRect(x: 51, y: 32, width: 44, height: 56)
        var points: [FacePoint] = [], chip: DecodedImage?, descriptor: [Float]?
        let landmarks = seconds { for _ in 0..<repeats { points = landmarkModel.landmarks(in: image, box: box) } }
        let chips = seconds { for _ in 0..<repeats { chip = FaceChip.extract(from: image, landmarks: points) } }
        _ = recognizer.descriptor(ofChip: chip!)  // warm the workspace
        let network = seconds { for _ in 0..<repeats { descriptor = recognizer.descriptor(ofChip: chip!) } }
        var lines = [("landmarks", landmarks), ("chip", chips), ("descriptor", network)].map { name, time in
            String(format: "%@: %.2f ms wall, %.2f ms CPU per face", name, time.wall * 1000 / Double(repeats), time.cpu * 1000 / Double(repeats))
        }
        lines.append("descriptor length \(descriptor?.count ?? 0)")
        return lines
    }

    /// The resident set now (VmRSS), in MB.
    static func residentMegabytes() -> Double { statusMegabytes("VmRSS:") }

    /// The largest resident set so far (VmHWM), in MB.
    static func peakMemoryMegabytes() -> Double { statusMegabytes("VmHWM:") }

    /// A kB field of /proc/self/status in MB; NaN where there is none.
    private static func statusMegabytes(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return .nan }
        return kilobytes / 1024
    }

    /// Wall-clock and CPU (user + system, all threads) seconds of `body`: on a shared machine the
    /// wall clock depends on the neighbours, the CPU time much less.
    static func seconds(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
        let start = (DispatchTime.now().uptimeNanoseconds, cpuNow())
        try await body()
        return since(start)
    }

    /// Wall-clock and CPU seconds since `start` (uptime nanoseconds, ``cpuNow()``).
    private static func since(_ start: (wall: UInt64, cpu: Double)) -> (wall: Double, cpu: Double) {
        (Double(DispatchTime.now().uptimeNanoseconds - start.wall) / 1e9, cpuNow() - start.cpu)
    }

    static func cpuNow() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// ``seconds(_:)`` for synchronous work.
    static func seconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        let start = (DispatchTime.now().uptimeNanoseconds, cpuNow())
        try body()
        return since(start)
    }

    /// A point on the sphere of radius 0.75: two people about 1.06 apart, like dlib's different people.
    private static func person(using random: inout SeededRandom) -> [Float] {
        let direction = random.floats(128)
        let scale = 0.75 / direction.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return direction.map { $0 * scale }
    }

    /// 70% of faces in recurring people (the r-th largest has about 6000 / r^0.9 faces per 100,000),
    /// each face its person plus uniform noise of standard deviation 0.03 per value (faces of one
    /// person about 0.48 apart), and 30% strangers; shuffled, then three to a photo, so that a
    /// photo's faces are of different people, as grouping takes them.
    static func library(_ count: Int, seed: UInt64, prefix: String) -> [DescribedFace] {
        var random = SeededRandom(seed: seed)
        var descriptors: [[Float]] = []
        descriptors.reserveCapacity(count)
        let noise = Float(0.03) * Float(3).squareRoot()
        var rank = 1.0
        while descriptors.count < count * 7 / 10 {
            let size = max(1, Int(6000 / pow(rank, 0.9) * Double(count) / 100_000))
            let center = person(using: &random)
            for _ in 0..<min(size, count * 7 / 10 - descriptors.count) {
                descriptors.append(zip(center, random.floats(128, in: -noise...noise)).map { $0 + $1 })
            }
            rank += 1
        }
        while descriptors.count < count { descriptors.append(person(using: &random)) }
        return descriptors.shuffled(using: &random).enumerated().map { index, descriptor in
            DescribedFace(key: FaceKey(contentHash: "\(prefix)\(index / 3)", faceNumber: index % 3), descriptor: descriptor)
        }
    }
}
