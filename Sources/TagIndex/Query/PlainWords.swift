/// The words of a plain search that are not labels: small words the search skips, years, month
/// names and color names. Which of them a word becomes is decided against the index's labels
/// (see ``PlainWordReading``): a label of the same name wins.
///
/// Usage: `PlainWords.year("2019")  // 2019`
public enum PlainWords {
    /// Words a plain search skips (`dog on the beach` searches dog and beach; `pictures of my
    /// cat` searches cat), unless the index has a label of that name.
    ///
    /// Usage: `PlainWords.smallWords.contains("the")`
    public static let smallWords: Set<String> = [
        "a", "an", "and", "at", "by", "for", "from", "in", "is", "it", "of", "on", "the", "to", "with",
        "my", "our", "your", "his", "her", "their",
        "photo", "photos", "picture", "pictures", "pic", "pics", "image", "images",
    ]

    /// Month names, January first.
    ///
    /// Usage: `PlainWords.monthNames[5]  // "june"`
    public static let monthNames = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]

    /// The colors a plain word names, with the color searched (the one `--color` examples use).
    ///
    /// Usage: `PlainWords.colors["red"]?.hex  // "D32F2F"`
    public static let colors: [String: IndexedColor] = [
        "black": "111111", "white": "F5F5F5", "gray": "9E9E9E", "grey": "9E9E9E", "red": "D32F2F",
        "orange": "F57C00", "yellow": "FBC02D", "green": "388E3C", "blue": "1976D2", "purple": "7B1FA2",
        "pink": "EC407A", "brown": "795548",
    ].mapValues { IndexedColor(hex: $0)! }

    /// The years a plain word may name: the first photographs to a century from now.
    ///
    /// Usage: `PlainWords.years.contains(2019)`
    public static let years = 1826...2126

    /// The year `word` names (four digits in ``years``), else nil.
    ///
    /// Usage: `PlainWords.year("2019")  // 2019`
    public static func year(_ word: String) -> Int? {
        guard word.count == 4, word.allSatisfy(\.isASCII), let year = Int(word), years.contains(year) else { return nil }
        return year
    }

    /// The span a year or date written as a plain word names (`2019`, `2019-06`, `2019-06-14`, a
    /// year within ``years``), else nil.
    ///
    /// Usage: `PlainWords.dates("2019-06")?.lower  // "2019-06-01"`
    public static func dates(_ word: String) -> LocalTimeRange? {
        guard [4, 7, 10].contains(word.count), year(String(word.prefix(4))) != nil,
            word.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }),
            let period = LocalTimeRange.period(word)
        else { return nil }
        return LocalTimeRange(lower: period.start, upper: period.end)
    }

    /// The month (1...12) `word` names in full, any case, else nil.
    ///
    /// Usage: `PlainWords.month("June")  // 6`
    public static func month(_ word: String) -> Int? {
        monthNames.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }

    /// The color `name` names (a word above, or six hex digits with or without `#`), else nil.
    ///
    /// Usage: `PlainWords.color("#012ACF")`
    public static func color(_ name: String) -> IndexedColor? {
        colors[name.lowercased()] ?? IndexedColor(hex: name)
    }
}
