import Foundation

/// How people's names compare in search: case and accents ignored, spaces collapsed
/// (`person:zoe` finds Zoé).
///
/// Usage: `PeopleNames.key("Zoé  Martin")  // "zoe martin"`
package enum PeopleNames {
    /// The folded form stored in `people.name_key`.
    package static func key(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The person a stored face is in, as `show` names it.
///
/// Usage: `if let person = face.person { print("person \(person.id)", person.name ?? "") }`
public struct FacePerson: Sendable, Hashable, Codable {
    /// Usage: `person.id`
    public var id: Int64
    /// Usage: `person.name ?? "unnamed"`
    public var name: String?

    /// Usage: `FacePerson(id: 7, name: "Anna")`
    public init(id: Int64, name: String?) {
        self.id = id
        self.name = name
    }
}
