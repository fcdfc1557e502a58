import Foundation

/// The parameters of a URL query string as an HTML form sends them (`application/x-www-form-urlencoded`):
/// `+` is a space, `%XX` a byte of UTF-8. A malformed escape is a 400, not a guess.
///
/// ```swift
/// let parameters = try QueryParameters(request.uri.query)
/// let text = parameters["q"] ?? ""
/// ```
struct QueryParameters: Sendable {
    private var values: [String: String] = [:]

    /// The longest query string accepted: longer ones are almost certainly not a person's search.
    static let maximumLength = 8192

    init(_ query: String?) throws(GalleryError) {
        guard let query, !query.isEmpty else { return }
        guard query.utf8.count <= Self.maximumLength else {
            throw GalleryError(.badRequest, "the query string is longer than \(Self.maximumLength) bytes")
        }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try Self.decode(parts[0]), value = parts.count > 1 ? try Self.decode(parts[1]) : ""
            // The first occurrence wins, as in most frameworks.
            if values[key] == nil { values[key] = value }
        }
    }

    /// No parameters.
    static let empty = QueryParameters()

    private init() {}

    subscript(_ name: String) -> String? { values[name] }

    /// The value of `name` as an integer in `range`; nil when absent or empty.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(GalleryError) -> Int? {
        guard let text = values[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw GalleryError(.badRequest, "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// The value of `name` as a number in `range`; nil when absent or empty.
    func number(_ name: String, in range: ClosedRange<Double>) throws(GalleryError) -> Double? {
        guard let text = values[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw GalleryError(.badRequest, "\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// The value of `name` as one of `choices`' raw values; nil when absent or empty.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, as type: Choice.Type) throws(GalleryError) -> Choice?
    where Choice.RawValue == String {
        guard let text = values[name], !text.isEmpty else { return nil }
        guard let choice = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw GalleryError(.badRequest, "\(name) takes one of \(allowed), not '\(text)'")
        }
        return choice
    }

    private static func decode(_ text: Substring) throws(GalleryError) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw GalleryError(.badRequest, "the query string has a malformed %-escape")
        }
        return decoded
    }
}

extension String {
    /// The string as one value of a URL query (`application/x-www-form-urlencoded`, spaces as `%20`).
    var urlQueryEncoded: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// Builds `path?key=value&...` with encoded values, leaving out empty ones.
///
/// ```swift
/// let link = URLQuery.link("/", ["q": "dog", "page": "2"])   // /?page=2&q=dog
/// ```
enum URLQuery {
    static func link(_ path: String, _ parameters: KeyValuePairs<String, String?>) -> String {
        let pairs = parameters.compactMap { key, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return key + "=" + value.urlQueryEncoded
        }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }
}
