import Foundation
import Testing

/// Every relative link and image in the repository's Markdown reaches something: the file (or folder)
/// exists, relative to the page that links it, and a `#fragment` names a heading of the linked page as
/// GitHub spells its anchors. Links to other sites (`http:`, `https:`, `mailto:`, any `scheme:`) are not
/// followed, and neither are links inside fenced code blocks or inline code.
///
/// The pages checked are the front page and the shelf: README.md, CONTRIBUTING.md, docs/*.md,
/// Models/**/*.md, Scripts/README.md and Tests/**/README.md (build folders, `.build*`, are skipped).
@Suite struct RelativeLinkTests {
    /// The package root: this file is Tests/DocumentationTests/RelativeLinkTests.swift.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyRelativeLinkResolves() throws {
        let pages = try MarkdownPages.find(in: Self.root)
        // A check that finds nothing passes vacuously: the front page and the shelf's index must be there.
        #expect(pages.contains("README.md"), "README.md not found under \(Self.root.path)")
        #expect(pages.contains("docs/README.md"), "docs/README.md not found under \(Self.root.path)")

        var anchors: [String: Set<String>] = [:]
        func anchorsOf(_ page: URL) throws -> Set<String> {
            if let known = anchors[page.path] { return known }
            let found = Set(MarkdownPage(text: try String(contentsOf: page, encoding: .utf8)).headingAnchors)
            anchors[page.path] = found
            return found
        }

        var checked = 0
        for page in pages {
            let file = Self.root.appending(path: page)
            let text = try String(contentsOf: file, encoding: .utf8)
            for link in MarkdownPage(text: text).links {
                guard let target = RelativeTarget(link.target) else { continue }
                checked += 1
                let where_ = "\(page):\(link.line)"
                let linked = target.path.isEmpty
                    ? file : file.deletingLastPathComponent().appending(path: target.path).standardizedFileURL
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: linked.path, isDirectory: &isFolder) else {
                    Issue.record("\(where_): broken link '\(link.target)': no file \(linked.path)")
                    continue
                }
                guard let fragment = target.fragment, !isFolder.boolValue, linked.pathExtension == "md" else { continue }
                if try !anchorsOf(linked).contains(fragment) {
                    Issue.record("\(where_): broken link '\(link.target)': no heading with the anchor '#\(fragment)' in \(linked.lastPathComponent)")
                }
            }
        }
        #expect(checked > 0, "no relative link found in \(pages.count) pages")
    }

    // The parsing rules themselves, on small pages.

    @Test func anchorsFollowGitHubsSlugs() {
        let page = MarkdownPage(text: """
            # The gallery: `classify-tool serve`
            ## Speed at 1,000,000 images, both backends
            ## Notes
            ## Notes
            ### AMD EPYC, Zen 4 (family 25; AVX-512F/DQ/BW/VL/VNNI), 2 cores
            ## [A link](x.md) and *emphasis* & more
            ```
            # not a heading
            ```
            """)
        #expect(page.headingAnchors == [
            "the-gallery-classify-tool-serve", "speed-at-1000000-images-both-backends", "notes", "notes-1",
            "amd-epyc-zen-4-family-25-avx-512fdqbwvlvnni-2-cores", "a-link-and-emphasis--more",
        ])
    }

    @Test func linksOutsideCodeOnlyWithTheirLines() {
        let page = MarkdownPage(text: """
            See [faces](docs/faces.md#api) and ![shot](docs/a.png "title").
            `[not](a-link.md)` nor [site](https://example.org)
            ~~~
            [inside](fence.md)
            ~~~
            [last](<with space.md>)
            """)
        #expect(page.links.map(\.target) == ["docs/faces.md#api", "docs/a.png", "https://example.org", "with space.md"])
        #expect(page.links.map(\.line) == [1, 1, 2, 6])
        #expect(RelativeTarget("https://example.org") == nil)
        #expect(RelativeTarget("mailto:someone@example.org") == nil)
        #expect(RelativeTarget("docs/faces.md#api") == RelativeTarget(path: "docs/faces.md", fragment: "api"))
        #expect(RelativeTarget("#usage") == RelativeTarget(path: "", fragment: "usage"))
        #expect(RelativeTarget("my%20page.md") == RelativeTarget(path: "my page.md", fragment: nil))
    }
}

/// The Markdown pages to check, as paths relative to the root, sorted.
enum MarkdownPages {
    static func find(in root: URL) throws -> [String] {
        var pages: [String] = []
        let rootPath = root.standardizedFileURL.path
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else {
            return []
        }
        for case let url as URL in walk {
            let name = url.lastPathComponent
            if (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true {
                // .build*, .git, .swiftpm; and at the top, the folders that hold no checked page (Sources).
                if name.hasPrefix(".") || (walk.level == 1 && !topFolders.contains(name)) { walk.skipDescendants() }
                continue
            }
            guard name.hasSuffix(".md") else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(rootPath.count + 1))
            if isChecked(path) { pages.append(path) }
        }
        return pages.sorted()
    }

    /// The top-level folders that hold checked pages.
    static let topFolders: Set<String> = ["docs", "Models", "Scripts", "Tests"]

    static func isChecked(_ path: String) -> Bool {
        let parts = path.split(separator: "/").map(String.init)
        switch parts.first {
        case "README.md", "CONTRIBUTING.md": return parts.count == 1
        case "docs": return parts.count == 2
        case "Models": return true
        case "Scripts": return path == "Scripts/README.md"
        case "Tests": return parts.last == "README.md"
        default: return false
        }
    }
}

/// A link's target when it stays in the repository: the path (empty for `#fragment` alone), percent-decoded,
/// and the fragment.
struct RelativeTarget: Equatable {
    var path: String
    var fragment: String?

    init(path: String, fragment: String?) {
        self.path = path
        self.fragment = fragment
    }

    /// nil for a target with a scheme (`https:`, `mailto:`, ...).
    init?(_ target: String) {
        if target.firstMatch(of: /^[A-Za-z][A-Za-z0-9+.\-]*:/) != nil { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        fragment = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
    }
}

/// What the check needs of a Markdown page: its inline links and images, and its headings' anchors,
/// both outside fenced code blocks.
struct MarkdownPage {
    struct Link {
        var line: Int
        var target: String
    }

    var links: [Link] = []
    var headingAnchors: [String] = []

    init(text: String) {
        var fence: (character: Character, length: Int)?
        var slugCounts: [String: Int] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop(while: { $0 == " " })
            let indent = line.count - trimmed.count
            if indent <= 3, let marker = trimmed.first, marker == "`" || marker == "~" {
                let length = trimmed.prefix(while: { $0 == marker }).count
                if length >= 3 {
                    if let open = fence {
                        if marker == open.character, length >= open.length,
                           trimmed.dropFirst(length).allSatisfy({ $0 == " " || $0 == "\t" }) {
                            fence = nil
                        }
                    } else {
                        fence = (marker, length)
                    }
                    continue
                }
            }
            if fence != nil { continue }

            let prose = Self.removingCodeSpans(String(line))
            // Swift's regexes are slow: only lines that can hold a link go through this one.
            let linkMatches = prose.contains("](")
                ? prose.matches(of: /!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\s*\)/)
                : []
            for match in linkMatches {
                var target = String(match.output.1)
                if target.hasPrefix("<") { target = String(target.dropFirst().dropLast()) }
                links.append(Link(line: index + 1, target: target))
            }

            if indent <= 3, trimmed.first == "#", let heading = trimmed.firstMatch(of: /^#{1,6}(?:[ \t]+(.*?))?[ \t]*$/) {
                var title = String(heading.output.1 ?? "")
                title = title.replacing(/[ \t]+#+$/, with: "")  // closing hashes
                let slug = Self.slug(of: title)
                let count = slugCounts[slug, default: 0]
                slugCounts[slug] = count + 1
                headingAnchors.append(count == 0 ? slug : "\(slug)-\(count)")
            }
        }
    }

    /// GitHub's anchor for a heading: the rendered text (code spans as their text, links as their text,
    /// no emphasis markers or HTML tags), lowercased; letters, digits, marks, `-` and `_` kept, every
    /// space turned into `-`, everything else dropped.
    static func slug(of heading: String) -> String {
        var text = heading.replacing(/!?\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }
        text = text.replacing(/<[^>]+>/, with: "")
        text = text.replacing("`", with: "")
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            let properties = scalar.properties
            if scalar == " " {
                slug.append("-")
            } else if scalar == "-" || scalar == "_" || properties.isAlphabetic
                || properties.generalCategory == .decimalNumber || properties.generalCategory == .otherNumber
                || properties.generalCategory == .letterNumber || properties.generalCategory == .nonspacingMark
                || properties.generalCategory == .spacingMark || properties.generalCategory == .enclosingMark {
                slug.unicodeScalars.append(scalar)
            }
        }
        return slug
    }

    /// The line with its inline code spans (`...`, ``...``) removed.
    static func removingCodeSpans(_ line: String) -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.firstIndex(of: "`") {
            result += rest[..<start]
            let ticks = rest[start...].prefix(while: { $0 == "`" })
            let afterTicks = rest[ticks.endIndex...]
            if let close = afterTicks.range(of: String(ticks)) {
                rest = afterTicks[close.upperBound...]
            } else {
                result += ticks
                rest = afterTicks
            }
        }
        return result + rest
    }
}
