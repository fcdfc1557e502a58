import ArgumentParser
import ClassifyBenchmarks
import Foundation

/// `classify-bench places`: reverse geocoding and place-name lookups on the places file.
struct PlacesBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Measure reverse geocoding and place-name lookups.",
        discussion: """
            Loads Models/places (GeoNames' populated places), then times the nearest
            place of seeded points near real places (half within 2 km, half up to
            30 km away) and a set of name lookups, as this thread's CPU time.

            Example:
              classify-bench places --points 100000
            """)

    @Option(help: "Reverse lookups timed.") var points = 100_000

    func validate() throws {
        guard points >= 1 else { throw ValidationError("--points takes 1 or more") }
    }

    func run() throws {
        let report = try PlacesBenchmark.run(points: points)
        BenchOutput.figures(String(format: "loaded %d places in %.1f ms", report.places, report.loadMilliseconds))
        BenchOutput.figures(String(
            format: "nearestPlace: %.2f µs CPU (%.2f µs wall) per lookup over %d points (%d found a place)",
            report.nearestMicrosecondsCPU, report.nearestMicrosecondsWall, report.points, report.pointsWithAPlace))
        BenchOutput.figures(String(format: "places(named:): %.2f µs CPU per lookup (%d lookups)", report.nameMicrosecondsCPU, report.nameLookups))
    }
}
