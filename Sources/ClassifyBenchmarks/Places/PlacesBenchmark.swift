import Classify
import ClassifyTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Times reverse geocoding (``PlaceDirectory/nearestPlace(latitude:longitude:)``) and name lookups
/// on the committed places file.
///
/// Points are drawn (seeded) near the places themselves, as photos are, half of them up to 30 km
/// away so that sea and empty land are in the mix. Times are this thread's CPU time (on a shared
/// machine wall time also counts waiting for a core), wall time beside it.
///
/// ```swift
/// let report = try PlacesBenchmark.run(points: 100_000)
/// print(report.nearestMicrosecondsCPU)
/// ```
package enum PlacesBenchmark {
    /// Figures of one run.
    package struct Report: Sendable, Codable {
        package var places: Int
        package var loadMilliseconds: Double
        package var points: Int
        package var pointsWithAPlace: Int
        package var nearestMicrosecondsCPU: Double
        package var nearestMicrosecondsWall: Double
        package var nameLookups: Int
        package var nameMicrosecondsCPU: Double
    }

    /// Loads the places and times `points` reverse lookups and a set of name lookups.
    package static func run(points count: Int = 100_000) throws -> Report {
        let loadStart = Date()
        let places = try PlaceDirectory.shared()
        let loadMilliseconds = Date().timeIntervalSince(loadStart) * 1000

        var random = SeededRandom(seed: 42)
        let anchors = (0..<200).map { _ in places.place(at: Int.random(in: 0..<places.count, using: &random)) }
        var points: [(Double, Double)] = []
        for _ in 0..<count {
            let anchor = anchors[Int.random(in: 0..<anchors.count, using: &random)]
            let spread = Bool.random(using: &random) ? 0.02 : 0.3
            points.append((
                min(90, max(-90, anchor.latitude + Double.random(in: -spread...spread, using: &random))),
                min(180, max(-180, anchor.longitude + Double.random(in: -spread...spread, using: &random)))))
        }
        var found = 0
        let start = Date(), startCPU = threadCPUSeconds()
        for (latitude, longitude) in points where places.nearestPlace(latitude: latitude, longitude: longitude) != nil {
            found += 1
        }
        let elapsed = Date().timeIntervalSince(start), elapsedCPU = threadCPUSeconds() - startCPU

        let names = ["lyon", "Zürich", "springfield", "münchen", "new york city", "no such place"]
        let rounds = 2000
        let nameStart = threadCPUSeconds()
        var matches = 0
        for _ in 0..<rounds { for name in names { matches += places.places(named: name).count } }
        let nameElapsed = threadCPUSeconds() - nameStart
        return Report(
            places: places.count, loadMilliseconds: loadMilliseconds, points: count, pointsWithAPlace: found,
            nearestMicrosecondsCPU: elapsedCPU / Double(count) * 1e6, nearestMicrosecondsWall: elapsed / Double(count) * 1e6,
            nameLookups: rounds * names.count, nameMicrosecondsCPU: nameElapsed / Double(rounds * names.count) * 1e6)
    }

    /// This thread's CPU time in seconds.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
