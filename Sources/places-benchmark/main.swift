// Measures reverse-geocoding and name lookups on the committed places file.
//
//   swift build -c release --product places-benchmark && .build/release/places-benchmark
//
// Points are drawn (seeded) near the places themselves, as photos are, half of them up to 30 km
// away so that sea and empty land are in the mix; the timing covers nearestPlace only, as this
// thread's CPU time (wall time too, which on a shared machine includes waiting for a core).
import Classify
import ClassifyTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This thread's CPU time in seconds: on a shared machine wall time also counts other processes.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let loadStart = Date()
let places = try PlaceDirectory.shared()
print(String(format: "loaded %d places in %.1f ms", places.count, Date().timeIntervalSince(loadStart) * 1000))

var random = SeededRandom(seed: 42)
let anchors = (0..<200).map { _ in places.place(at: Int.random(in: 0..<places.count, using: &random)) }
var points: [(Double, Double)] = []
for _ in 0..<100_000 {
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
print(String(format: "nearestPlace: %.2f µs CPU (%.2f µs wall) per lookup over %d points (%d found a place)",
    elapsedCPU / Double(points.count) * 1e6, elapsed / Double(points.count) * 1e6, points.count, found))

let names = ["lyon", "Zürich", "springfield", "münchen", "new york city", "no such place"]
let nameStart = threadCPUSeconds()
var matches = 0
for _ in 0..<2000 { for name in names { matches += places.places(named: name).count } }
print(String(format: "places(named:): %.2f µs CPU per lookup (%d matches)",
    (threadCPUSeconds() - nameStart) / Double(2000 * names.count) * 1e6, matches))
