import ClassifyPeople
import GRDB

/// How a ``PeopleCorrection`` is stored in `people_corrections` (see ``PeopleSchema``): a kind
/// word, the face, the other face (merge, move, not), the name, the source and its priority.
package enum StoredPeopleCorrection {
    /// The values of the columns after `id`, for an INSERT of `kind, content_hash, face_number,
    /// other_hash, other_number, name, source, priority, made_at`.
    package static func values(of correction: PeopleCorrection, madeAt: Int64) -> [DatabaseValue] {
        let (word, face, other, name): (String, FaceKey, FaceKey?, String?) =
            switch correction.kind {
            case .name(let face, let name): ("name", face, nil, name)
            case .merge(let a, let b): ("merge", a, b, nil)
            case .move(let face, let target): ("move", face, target, nil)
            case .notThisPerson(let face, let person): ("not", face, person, nil)
            case .notAFace(let face): ("hide", face, nil, nil)
            }
        return [
            word.databaseValue, face.contentHash.databaseValue, Int64(face.faceNumber).databaseValue,
            other?.contentHash.databaseValue ?? .null, other.map { Int64($0.faceNumber) }.databaseValue,
            name.databaseValue, sourceText(correction.source).databaseValue, Int64(correction.priority).databaseValue,
            madeAt.databaseValue,
        ]
    }

    /// The INSERT of one correction, with the backend's placeholders.
    package static func insert(placeholder: (Int) -> String) -> String {
        "INSERT INTO people_corrections(kind, content_hash, face_number, other_hash, other_number, name, source, priority, made_at) VALUES ("
            + (1...9).map(placeholder).joined(separator: ", ") + ")"
    }

    /// A correction from a row of ``PeopleSchema/correctionColumns``; nil for a row this version
    /// cannot read (an unknown kind written by a newer one), which is left alone.
    package static func correction(from row: [DatabaseValue]) -> PeopleCorrection? {
        guard row.count >= 9, let sequence = Int64.fromDatabaseValue(row[0]), let word = String.fromDatabaseValue(row[1]),
            let hash = String.fromDatabaseValue(row[2]), let number = Int64.fromDatabaseValue(row[3]),
            let sourceText = String.fromDatabaseValue(row[7]), let priority = Int64.fromDatabaseValue(row[8])
        else { return nil }
        let face = FaceKey(contentHash: hash, faceNumber: Int(number))
        let other = String.fromDatabaseValue(row[4]).flatMap { otherHash in
            Int64.fromDatabaseValue(row[5]).map { FaceKey(contentHash: otherHash, faceNumber: Int($0)) }
        }
        let kind: PeopleCorrection.Kind
        switch (word, other, String.fromDatabaseValue(row[6])) {
        case ("name", _, let name?): kind = .name(face, name)
        case ("merge", let other?, _): kind = .merge(face, other)
        case ("move", let other?, _): kind = .move(face, to: other)
        case ("not", let other?, _): kind = .notThisPerson(face, person: other)
        case ("hide", _, _): kind = .notAFace(face)
        default: return nil
        }
        return PeopleCorrection(kind, source: source(sourceText), priority: Int(priority), sequence: sequence)
    }

    /// `user`, `imported:xmp`, `rule:name`.
    package static func sourceText(_ source: CorrectionSource) -> String {
        switch source {
        case .user: "user"
        case .imported(let from): "imported:" + from
        case .rule(let name): "rule:" + name
        }
    }

    static func source(_ text: String) -> CorrectionSource {
        if text.hasPrefix("imported:") { return .imported(String(text.dropFirst("imported:".count))) }
        if text.hasPrefix("rule:") { return .rule(String(text.dropFirst("rule:".count))) }
        return .user
    }
}
