import Foundation

/// Which nearby place a photo was taken "in".
///
/// The nearest point is not the answer: GeoNames puts a point at the centre of each place, so
/// in the outskirts of a town the centre of a hamlet of 500 people is often nearer than the
/// town's. Each place within 25 km pulls with its population over the cube of the distance,
/// and the strongest pull wins. Where two places' pulls balance, the ratio of the distances is
/// the cube root of the ratio of the populations: a town of 20 000 reaches 2.7 times as far as
/// a hamlet of 500 along the line between them. (Reilly's law of retail gravitation uses the
/// square, which would fit towns of equal density; built-up area grows more slowly than
/// population, about as its 2/3 power, so a radius grows as its 1/3 power and the cube fits.)
/// Distances below 1 km count as 1 km, since a point stands for an area at least that wide:
/// within a kilometre the most populous place wins outright. Examples (tested):
/// - a hamlet of 500 at 300 m does not beat a town of 20 000 whose centre is 2 km away
///   (500 against 2 500), but does when the town is 4 km away (500 against 312);
/// - in the centre of Kehl (35 000 people), Strasbourg (280 000) 5 km away pulls only 2 240.
/// Near a border between twin cities the rule can still pick the wrong side (downtown
/// Windsor's riverfront is nearer to Detroit's point than to Windsor's); without borders in
/// the file that cannot be told apart.
///
/// Only places within ``PlaceRanking/searchRadiusKilometres`` count at all; at sea or in the
/// wilderness there is no place.
enum PlaceRanking {
    /// Farther than this from every place, a photo has no place.
    static let searchRadiusKilometres = 25.0
    /// Distances below this count as this much (see the type's comment).
    static let distanceFloorKilometres = 1.0
    /// Mean Earth radius (IUGG), for haversine distances.
    static let earthRadiusKilometres = 6371.0088

    /// The pull of a place of `population` at `distance` km; places of 0 people count as 1.
    static func pull(population: Int, distanceKilometres distance: Double) -> Double {
        let floored = max(distance, distanceFloorKilometres)
        return Double(max(population, 1)) / (floored * floored * floored)
    }

    /// Great-circle distance in km.
    static func distanceKilometres(
        latitude: Double, longitude: Double, toLatitude otherLatitude: Double, longitude otherLongitude: Double
    ) -> Double {
        let radians = Double.pi / 180
        let deltaLatitude = (otherLatitude - latitude) * radians, deltaLongitude = (otherLongitude - longitude) * radians
        let a = sin(deltaLatitude / 2) * sin(deltaLatitude / 2)
            + cos(latitude * radians) * cos(otherLatitude * radians) * sin(deltaLongitude / 2) * sin(deltaLongitude / 2)
        return 2 * earthRadiusKilometres * asin(min(1, sqrt(a)))
    }
}
