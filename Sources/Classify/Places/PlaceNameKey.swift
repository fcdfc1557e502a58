import Foundation

/// The lookup form of a place or country name: compatibility-decomposed (NFKD), lowercased,
/// combining marks removed, blanks collapsed. "Zürich", "ZURICH" and "zurich" share one key.
/// Scripts/convert-places computes the same for the keys it writes.
enum PlaceNameKey {
    static func key(_ text: String) -> String {
        let folded = text.decomposedStringWithCompatibilityMapping.lowercased()
        var scalars = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        return String(scalars).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
