// swift-tools-version: 6.0
import PackageDescription

// classify: on-device image classification and label search for Linux.
//
// System libraries are found with pkg-config (install them with Scripts/bootstrap).
// No unsafeFlags: the package must stay usable as a versioned dependency, so CPU-specific
// code uses per-function target attributes in C (see CClassifyKernels) behind a runtime check.
let package = Package(
    name: "classify",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Classify", targets: ["Classify"]),
        .library(name: "TagIndex", targets: ["TagIndex"]),
        .library(name: "TagIndexPostgres", targets: ["TagIndexPostgres"]),
        .library(name: "ClassifyIndexing", targets: ["ClassifyIndexing"]),
        .library(name: "ClassifyGallery", targets: ["ClassifyGallery"]),
        .library(name: "ClassifyExport", targets: ["ClassifyExport"]),
        .library(name: "ClassifyPeople", targets: ["ClassifyPeople"]),
        .executable(name: "classify-tool", targets: ["classify-tool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // MARK: System libraries
        .systemLibrary(
            name: "CClassifyJPEG", path: "Sources/CClassifyJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(
            name: "CClassifyPNG", path: "Sources/CClassifyPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CClassifyHEIF", path: "Sources/CClassifyHEIF", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "CClassifyWebP", path: "Sources/CClassifyWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CClassifyTIFF", path: "Sources/CClassifyTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]),
        // giflib installs no pkg-config file on every distribution; its header is in /usr/include.
        .systemLibrary(name: "CClassifyGIF", path: "Sources/CClassifyGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(
            name: "CClassifyRaw", path: "Sources/CClassifyRaw", pkgConfig: "libraw_r",
            providers: [.apt(["libraw-dev"])]),

        // MARK: C at the edges
        // libjpeg/libpng report errors with setjmp/longjmp; that never crosses a Swift frame,
        // so all decoding calls live here and return an error code and message. The other
        // formats' libraries follow the same convention here: one C file per format.
        .target(
            name: "CClassifyCodecs",
            dependencies: [
                "CClassifyJPEG", "CClassifyPNG", "CClassifyHEIF", "CClassifyWebP", "CClassifyTIFF", "CClassifyGIF",
                "CClassifyRaw",
                // The JPEG transforms' vector paths follow the kernels' level (CLASSIFY_KERNELS, the CPU).
                "CClassifyKernels",
            ],
            // giflib has no pkg-config file to carry its -l flag; the module map's `link` only
            // reaches Swift importers, so the C target that calls it links it here.
            linkerSettings: [.linkedLibrary("gif")]),
        // Hot loops compiled for AVX2+FMA per function, selected at run time.
        .target(name: "CClassifyKernels"),

        // MARK: Libraries
        // Small pieces both libraries share (a lock ThreadSanitizer understands).
        .target(name: "ClassifySupport"),
        .target(
            name: "Classify",
            dependencies: ["CClassifyCodecs", "CClassifyKernels", "ClassifySupport"]),
        .target(
            name: "TagIndex",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // Hot search loops step SQLite statements directly (see TagIndex/Search/RawScan.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // fp16 feature-print dot products (F16C + FMA) for similarity search; plain C, no dependencies.
                "CClassifyKernels",
                "ClassifySupport",
                // Grouping faces into people (a pure function, no database).
                "ClassifyPeople",
            ]),
        // The PostgreSQL backend: one index shared by many machines. Its own target so that a
        // program embedding TagIndex for a SQLite index never compiles a network stack; programs
        // that want both open locations with `IndexOpener.standard`.
        .target(
            name: "TagIndexPostgres",
            dependencies: [
                "TagIndex", "ClassifySupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Who is in the photo: grouping face descriptors into people under stored corrections, as a
        // pure function (no database, no images), so TagIndex, the tool and the gallery can share it
        // and its tests build in seconds. Only the fp16 dot-product kernel comes from C.
        .target(name: "ClassifyPeople", dependencies: ["CClassifyKernels", "ClassifySupport"]),

        // Keeps a TagIndex in sync with folders by classifying what changed (uses both libraries).
        .target(name: "ClassifyIndexing", dependencies: ["Classify", "TagIndex", "ClassifyPeople", "ClassifySupport"]),

        // Labels where photo tools read them: XMP sidecars (parsed with Foundation's XML, i.e.
        // libxml2, which ships with the toolchain) and CSV / JSON Lines rows.
        .target(name: "ClassifyExport", dependencies: ["TagIndex", "ClassifySupport"]),

        // The local web gallery (`classify-tool serve`): routes over TagIndex and Classify on
        // Hummingbird. Templates, styles and scripts are files in Resources/, compiled into the
        // binary (embedInCode) so an installed classify-tool needs nothing beside it.
        .target(
            name: "ClassifyGallery",
            dependencies: [
                "Classify", "TagIndex", "ClassifyIndexing", "ClassifySupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [
                .embedInCode("Resources/templates/layout.mustache"),
                .embedInCode("Resources/templates/search.mustache"),
                .embedInCode("Resources/templates/tiles.mustache"),
                .embedInCode("Resources/templates/image.mustache"),
                .embedInCode("Resources/templates/duplicates.mustache"),
                .embedInCode("Resources/templates/labels.mustache"),
                .embedInCode("Resources/templates/label.mustache"),
                .embedInCode("Resources/templates/stats.mustache"),
                .embedInCode("Resources/templates/people.mustache"),
                .embedInCode("Resources/templates/person.mustache"),
                .embedInCode("Resources/templates/error.mustache"),
                .embedInCode("Resources/static/gallery.css"),
                .embedInCode("Resources/static/gallery.js"),
                .embedInCode("Resources/static/favicon.svg"),
                .embedInCode("Resources/static/unavailable.svg"),
            ]),

        // MARK: Executable
        .executableTarget(
            name: "classify-tool",
            dependencies: [
                "Classify", "TagIndex", "TagIndexPostgres", "ClassifyIndexing", "ClassifyGallery", "ClassifyExport", "ClassifySupport",
                // `bench`: the model's latency on this machine (LatencyBenchmark).
                "ClassifyBenchmarks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: Developer tools (not products: never built for dependents)
        // Benchmarks: synthetic libraries and workloads, timed; run through classify-bench
        // (`swift run -c release classify-bench --help`), never in a library a user links.
        .target(
            name: "ClassifyBenchmarks",
            dependencies: [
                "Classify", "TagIndex", "TagIndexPostgres", "ClassifyIndexing", "ClassifyPeople", "ClassifySupport",
                // Seeded random points and workloads.
                "ClassifyTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .executableTarget(
            name: "classify-bench",
            dependencies: [
                "ClassifyBenchmarks", "Classify", "TagIndex", "TagIndexPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: Measurements (not products)

        // MARK: Fuzzing (not products: never built for dependents)
        // libFuzzer targets; Scripts/fuzz builds them with -sanitize=fuzzer,address and -DFUZZING.
        // A normal build makes small tools that write seed corpora and replay inputs.
        // ClassifyTestSupport gives them the libFuzzer driver, the replay loop and the test image encoders.
        .executableTarget(name: "fuzz-decode", dependencies: ["Classify", "CClassifyCodecs", "CClassifyTestEncoders", "ClassifyTestSupport"]),
        .executableTarget(name: "fuzz-query", dependencies: ["TagIndex", "ClassifyTestSupport"]),

        // MARK: Tests
        // JPEG and PNG encoders for odd variants (CMYK, thousands of scans, 16-bit, palettes), in C
        // because libjpeg and libpng report errors with longjmp; TIFF and large-file writers beside them.
        .target(
            name: "CClassifyTestEncoders", dependencies: ["CClassifyCodecs", "CClassifyJPEG", "CClassifyPNG", "CClassifyTIFF"],
            path: "Tests/CClassifyTestEncoders"),
        // Helpers shared by the test targets: seeded random numbers, JPEG/PNG test encoders, folder removal, exiftool.
        .target(name: "ClassifyTestSupport", dependencies: ["CClassifyCodecs", "CClassifyTestEncoders"], path: "Tests/ClassifyTestSupport"),
        // The throwaway PostgreSQL server of the index's tests (Scripts/dev-postgres), a fresh database each.
        .target(
            name: "TagIndexTestSupport",
            dependencies: ["TagIndex", "TagIndexPostgres", "ClassifyTestSupport", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/TagIndexTestSupport"),
        .testTarget(
            name: "ClassifyTests", dependencies: ["Classify", "ClassifyTestSupport", "CClassifyTestEncoders"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ClassifyPeopleTests", dependencies: ["ClassifyPeople", "ClassifyTestSupport"]),
        .testTarget(
            name: "TagIndexTests",
            dependencies: [
                "TagIndex", "TagIndexPostgres", "ClassifySupport", "ClassifyTestSupport", "TagIndexTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(name: "ClassifyIndexingTests", dependencies: ["ClassifyIndexing", "ClassifyTestSupport", "CClassifyTestEncoders"]),
        // The benchmarks' own checks (small runs that assert what they build); the timed runs are
        // classify-bench's.
        .testTarget(name: "ClassifyBenchmarksTests", dependencies: ["ClassifyBenchmarks", "TagIndex", "ClassifyTestSupport", "TagIndexTestSupport"]),
        // Sidecars read back with exiftool (skipped with a message where it is not installed).
        .testTarget(name: "ClassifyExportTests", dependencies: ["ClassifyExport", "TagIndex", "ClassifySupport", "ClassifyTestSupport"]),
        // Routes in-process (HummingbirdTesting, no sockets) on generated photos, over SQLite and over
        // PostgreSQL (Scripts/dev-postgres); Browser/ drives a real headless Chromium through
        // Scripts/browser-test against a live server.
        .testTarget(
            name: "ClassifyGalleryTests",
            dependencies: [
                "ClassifyGallery", "ClassifyIndexing", "Classify", "TagIndex", "TagIndexPostgres", "ClassifyTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        // End-to-end tests run the built executable (Help/ holds the pinned --help texts); Reliability/
        // also builds hostile images with the C test encoders and inspects databases directly.
        .testTarget(
            name: "ClassifyToolTests",
            dependencies: [
                "classify-tool", "classify-bench", "Classify", "TagIndex", "CClassifyCodecs", "CClassifyTestEncoders", "ClassifyTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Help"]),
        // Every relative link and image of the Markdown pages (README.md, CONTRIBUTING.md, docs/, ...) resolves,
        // fragments included; no dependencies, so `swift build --target DocumentationTests` compiles it alone.
        .testTarget(name: "DocumentationTests"),
    ],
    swiftLanguageModes: [.v6]
)
