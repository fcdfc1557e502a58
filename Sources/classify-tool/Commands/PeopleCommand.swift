import ArgumentParser
import Foundation
import TagIndex

/// `classify-tool people`: the people the faces were grouped into; naming, merging, moving and
/// hiding faces, kept as corrections that survive re-indexing and regrouping.
///
/// Usage: `classify-tool people name 7 Anna`
struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "List the people in your photos; name, merge and correct them.",
        discussion: """
            index groups the faces it describes into people: faces whose descriptors
            are near each other are one person, once at least 3 similar faces are
            seen; the rest wait, unassigned. Ids stay with a person across runs.
            What you say here is kept as a fact about faces (never about an id), so
            it survives re-indexing and regrouping, and always beats the automatic
            grouping. Faces are numbered from 1 as `show` lists them.
            Search with person:anna, person:7, or a name typed alone.

            Examples:
              classify-tool people
              classify-tool people --format json
              classify-tool people --unassigned
              classify-tool people name 7 Anna
              classify-tool people merge 7 12
              classify-tool people move ~/Photos/IMG_1.jpg 2 7
              classify-tool people not ~/Photos/IMG_1.jpg 2 7
              classify-tool people hide ~/Photos/IMG_1.jpg 3
            """,
        subcommands: [List.self, Name.self, Merge.self, Move.self, Not.self, Hide.self],
        defaultSubcommand: List.self)

    /// `people [list]`.
    ///
    /// Usage: `classify-tool people --format json`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List people: id, name, faces, photos and a sample photo.",
            discussion: "Examples:\n  classify-tool people\n  classify-tool people --unassigned --format json")
        @Option(help: "Output format.") var format: DetailFormat = .table
        @Flag(help: "List the faces waiting for a person instead.") var unassigned = false
        @Option(help: "List at most this many waiting faces.") var limit = 1_000
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var verbosity: VerbosityOptions

        func run() async throws {
            verbosity.apply()
            try await withIndex(database) { index in
                // A run killed while grouping, or an index from before people, is brought up to date.
                _ = try await index.refreshPeople()
                if unassigned {
                    let faces = try await index.unassignedFaces(limit: max(0, limit))
                    if format == .json { return try Terminal.json(JSONOutput.encode(UnassignedFacesOutput(faces))) }
                    for face in faces {
                        let size = face.wholePixelSide.map { "  \($0) px" } ?? ""
                        Terminal.out("\(face.path)  face \(face.faceNumber)\(size)\(face.isTooSmallToGroup() ? ", too small to group" : "")")
                    }
                    let small = faces.filter { $0.isTooSmallToGroup() }.count
                    Terminal.note(
                        "\(faces.count) face\(faces.count == 1 ? "" : "s") waiting for a person"
                            + (small == 0 ? "" : "; \(small) under \(Int(UnassignedFace.smallestGroupedSide)) px wait until named or moved"))
                    return
                }
                let people = try await index.people()
                if format == .json { return try Terminal.json(JSONOutput.encode(PeopleOutput(people))) }
                for person in people {
                    let name = (person.name ?? "(unnamed)").padding(toLength: max(20, (person.name ?? "").count), withPad: " ", startingAt: 0)
                    Terminal.out("\(String(person.id).leftPadded(6))  \(name)  \(String(person.faceCount).leftPadded(6)) faces  \(String(person.photoCount).leftPadded(6)) photos  \(person.samplePath ?? "")")
                }
                let named = people.filter { $0.name != nil }.count
                Terminal.note("\(people.count) \(people.count == 1 ? "person" : "people"), \(named) named")
            }
        }
    }

    /// `people name ID NAME`.
    ///
    /// Usage: `classify-tool people name 7 "Anna Schmidt"`
    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name a person (or rename); people given the same name become one.",
            discussion: "Example:\n  classify-tool people name 7 \"Anna Schmidt\"")
        @Argument(help: "The person's id, as `people` lists it.") var id: Int64
        @Argument(help: "The name.") var name: String
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var verbosity: VerbosityOptions

        func run() async throws {
            verbosity.apply()
            try await PeopleCommand.correct(.name(person: id, name), database, done: "named person \(id) \(name)")
        }
    }

    /// `people merge ID ID...`.
    ///
    /// Usage: `classify-tool people merge 7 12`
    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make several people one (they keep the id of the one with the most faces).",
            discussion: "Example:\n  classify-tool people merge 7 12 31")
        @Argument(help: "Two or more people's ids.") var ids: [Int64] = []
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var verbosity: VerbosityOptions

        func validate() throws { guard Set(ids).count >= 2 else { throw ValidationError("give two or more people's ids") } }

        func run() async throws {
            verbosity.apply()
            try await PeopleCommand.correct(.merge(ids), database, done: "merged people \(ids.map(String.init).joined(separator: ", "))")
        }
    }

    /// `people move PHOTO FACE ID`.
    ///
    /// Usage: `classify-tool people move IMG_1.jpg 2 7`
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move one face of a photo to a person.",
            discussion: "Example:\n  classify-tool people move IMG_1.jpg 2 7")
        @OptionGroup var target: FaceAndPerson

        func run() async throws {
            try await target.correct(.move(path: target.face.storedPath, face: target.face.number, to: target.id), done: "moved face \(target.face.number) of \(target.face.photo) to person \(target.id)")
        }
    }

    /// `people not PHOTO FACE ID`.
    ///
    /// Usage: `classify-tool people not IMG_1.jpg 2 7`
    struct Not: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say a face is not this person: grouping never puts it there again.",
            discussion: "Example:\n  classify-tool people not IMG_1.jpg 2 7")
        @OptionGroup var target: FaceAndPerson

        func run() async throws {
            try await target.correct(.notThisPerson(path: target.face.storedPath, face: target.face.number, person: target.id), done: "face \(target.face.number) of \(target.face.photo) is not person \(target.id)")
        }
    }

    /// `people hide PHOTO FACE`.
    ///
    /// Usage: `classify-tool people hide IMG_1.jpg 3`
    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hide a detection that is not a face: it leaves every person.",
            discussion: "Example:\n  classify-tool people hide IMG_1.jpg 3")
        @OptionGroup var face: FaceArguments
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var verbosity: VerbosityOptions

        func run() async throws {
            verbosity.apply()
            try await PeopleCommand.correct(.hide(path: face.storedPath, face: face.number), database, done: "hid face \(face.number) of \(face.photo)")
        }
    }
}

/// The `PHOTO FACE` arguments of `people move`, `not` and `hide`.
///
/// Usage: `@OptionGroup var face: FaceArguments`
struct FaceArguments: ParsableArguments {
    @Argument(help: "An indexed photo.") var photo: String
    @Argument(help: "The face's number, from 1 as `show` lists them.") var number: Int

    /// The path as the index stores it (a named library's `photos:/a.jpg` as written).
    var storedPath: String {
        LibraryRoot.isLibraryPath(photo) ? photo : URL(fileURLWithPath: photo).standardizedFileURL.path
    }
}

/// The `PHOTO FACE ID` arguments of `people move` and `not`, with the index.
///
/// Usage: `@OptionGroup var target: FaceAndPerson`
struct FaceAndPerson: ParsableArguments {
    @OptionGroup var face: FaceArguments
    @Argument(help: "The person's id.") var id: Int64
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    func correct(_ request: PeopleRequest, done: String) async throws {
        verbosity.apply()
        try await PeopleCommand.correct(request, database, done: done)
    }
}

/// Opens the index, runs `body`, closes it; an error is one line and exit status 1.
private func withIndex(_ database: DatabaseOptions, _ body: (any IndexBackend) async throws -> Void) async throws {
    do {
        let index = try await database.openBackend()
        do {
            try await body(index)
            await index.close()
        } catch {
            await index.close()
            throw error
        }
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Terminal.error("error: \(error)")
        throw ExitCode(ToolExit.failure)
    }
}

/// Records a correction, regroups and says what changed.
extension PeopleCommand {
    static func correct(_ request: PeopleRequest, _ database: DatabaseOptions, done: String) async throws {
        try await withIndex(database) { index in
            let refresh = try await index.correctPeople(request)
            Terminal.note("\(done); \(refresh.people) \(refresh.people == 1 ? "person" : "people") (\(refresh.named) named), \(refresh.unassigned) faces waiting")
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
