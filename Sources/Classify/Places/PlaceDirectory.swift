import Foundation

/// Offline places: the GeoNames populated places of `Models/places/places.bin` (see
/// Models/FORMAT.md, "Places"), memory-mapped on first use, with a grid index for "which
/// place was this photo taken in" and a name index for "photos from Lyon".
///
/// Reverse geocoding looks at the 0.5-degree grid cells within 25 km of the point (two to
/// six cells; about a thousand places in the densest parts of Europe) and ranks the places
/// within 25 km by ``PlaceRanking``: population over cubed distance, so the town you were in
/// beats the hamlet whose centre happened to be nearer. Immutable and `Sendable`: share one.
///
/// Usage:
/// ```swift
/// let places = try PlaceDirectory.shared()
/// if let location = image.metadata.location, let place = places.nearestPlace(to: location) {
///     print("\(place.name), \(place.countryName)")      // "Strasbourg, France"
/// }
/// let lyons = places.places(named: "lyon")                // most populous first
/// ```
public final class PlaceDirectory: Sendable {
    /// Environment variable naming a places file to use instead of the searched locations.
    /// Usage: `CLASSIFY_PLACES_FILE=/data/places.bin classify-tool ...`
    public static let environmentVariable = "CLASSIFY_PLACES_FILE"

    let file: PlacesFile
    private let countriesByKey: [String: Country]

    /// Opens (memory-maps) and checks a places file.
    /// Usage: `let places = try PlaceDirectory(contentsOf: URL(fileURLWithPath: "Models/places/places.bin"))`
    public init(contentsOf url: URL) throws(PlacesFileError) {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        file = try PlacesFile(data: data, path: url.path)
        var countries: [String: Country] = [:]
        for index in 0..<file.countryCount {
            let country = Self.country(at: index, in: file)
            countries[country.code.lowercased()] = country
            countries[PlaceNameKey.key(country.name)] = country
        }
        countriesByKey = countries
    }

    /// The files tried by ``shared()``, in order: ``environmentVariable``, then `places/places.bin`
    /// wherever ``ModelLocator`` looks for models (installed beside the executable, or this
    /// package's `Models/`).
    /// Usage: `print(PlaceDirectory.candidateFiles().map(\.path))`
    public static func candidateFiles() -> [URL] {
        var files: [URL] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable], !override.isEmpty {
            files.append(URL(fileURLWithPath: override))
        }
        files += ModelLocator.candidateDirectories(modelName: "places").map { $0.appending(path: "places.bin") }
        return files
    }

    private static let loaded: Result<PlaceDirectory, PlacesFileError> = {
        let candidates = candidateFiles()
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0.path) }) else {
            return .failure(.notFound(searched: candidates.map(\.path)))
        }
        return Result { () throws(PlacesFileError) -> PlaceDirectory in try PlaceDirectory(contentsOf: found) }
    }()

    /// The places file found by ``candidateFiles()``, loaded once on first use and shared.
    /// Usage: `let place = try PlaceDirectory.shared().nearestPlace(to: location)`
    public static func shared() throws(PlacesFileError) -> PlaceDirectory {
        try loaded.get()
    }

    /// How many places the file holds. Usage: `places.count`
    public var count: Int { file.placeCount }

    // MARK: Reverse geocoding

    /// The place a photo taken at `coordinate` was taken in, ranked by ``PlaceRanking`` among
    /// those within 25 km; nil at sea or far from any place.
    /// Usage: `places.nearestPlace(to: GPSCoordinate(latitude: 48.58, longitude: 7.75)!)?.name  // "Strasbourg"`
    public func nearestPlace(to coordinate: GPSCoordinate) -> Place? {
        nearestPlace(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// ``nearestPlace(to:)`` for bare degrees; nil for values out of range.
    /// Usage: `places.nearestPlace(latitude: 42.3149, longitude: -83.0364)?.name  // "Windsor"`
    public func nearestPlace(latitude: Double, longitude: Double) -> Place? {
        guard let index = nearestPlaceIndex(latitude: latitude, longitude: longitude) else { return nil }
        return place(at: index)
    }

    /// The row of the winning place, without building a ``Place``.
    package func nearestPlaceIndex(latitude: Double, longitude: Double) -> Int? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let file = self.file
        let radius = PlaceRanking.searchRadiusKilometres
        // Degrees of latitude per km are constant; of longitude they grow towards the poles.
        let latitudeSpan = radius / (PlaceRanking.earthRadiusKilometres * .pi / 180)
        let farthestLatitude = min(90, abs(latitude) + latitudeSpan)
        let cosine = cos(farthestLatitude * .pi / 180)
        let longitudeSpan = cosine > 1e-9 ? latitudeSpan / cosine : 360
        let perDegree = Double(file.cellsPerDegree)
        let firstRow = max(0, Int(((latitude - latitudeSpan + 90) * perDegree).rounded(.down)))
        let lastRow = min(file.gridHeight - 1, Int(((latitude + latitudeSpan + 90) * perDegree).rounded(.down)))
        // The columns to look at, as at most two ranges (the second when the span wraps around
        // the antimeridian).
        var columnRanges: [ClosedRange<Int>]
        if longitudeSpan >= 180 {
            columnRanges = [0...(file.gridWidth - 1)]
        } else {
            let first = Int(((longitude - longitudeSpan + 180) * perDegree).rounded(.down))
            let last = Int(((longitude + longitudeSpan + 180) * perDegree).rounded(.down))
            if first < 0 {
                columnRanges = [0...last, (first + file.gridWidth)...(file.gridWidth - 1)]
            } else if last >= file.gridWidth {
                columnRanges = [first...(file.gridWidth - 1), 0...(last - file.gridWidth)]
            } else {
                columnRanges = [first...last]
            }
        }
        let scale = PlacesFile.coordinateScale
        let kilometresPerDegree = PlaceRanking.earthRadiusKilometres * .pi / 180
        // 1% margin over the radius: the flat distance may differ that much from the great circle.
        let flatLimit = (radius * 1.01) * (radius * 1.01)
        let latitudeLimit = Int32(((latitudeSpan) * scale).rounded(.up))
        let queryLatitude = Int32((latitude * scale).rounded())

        var best: (index: Int, pull: Double, distance: Double)?
        file.data.withUnsafeBytes { bytes in
            let latitudes = file.offset(.latitudes)
            let longitudes = file.offset(.longitudes), populations = file.offset(.populations)
            for row in firstRow...max(firstRow, lastRow) where row <= lastRow {
                let rowCells = file.cells(inRow: row, in: bytes)
                for columns in columnRanges {
                    // The row's first stored cell at or after the range's first column.
                    var low = rowCells.lowerBound, high = rowCells.upperBound
                    while low < high {
                        let middle = (low + high) / 2
                        if file.column(ofCell: middle, in: bytes) < columns.lowerBound { low = middle + 1 } else { high = middle }
                    }
                    var cell = low
                    while cell < rowCells.upperBound {
                        let column = file.column(ofCell: cell, in: bytes)
                        guard column <= columns.upperBound else { break }
                        let corner = file.origin(row: row, column: column)
                        let start = file.firstPlace(ofCell: cell, in: bytes), end = file.firstPlace(ofCell: cell + 1, in: bytes)
                        cell += 1
                        for index in start..<end {
                            let placeLatitude = corner.latitude + Int32(bytes.littleEndianUInt16(latitudes + index * 2))
                            // Cheap rejection on latitude, then on a flat-map distance that never
                            // overstates (east-west km at the band's smallest cosine), before any
                            // trigonometry: most places of the cells are outside the circle.
                            guard abs(placeLatitude &- queryLatitude) <= latitudeLimit else { continue }
                            let placeLongitude = Double(corner.longitude + Int32(bytes.littleEndianUInt16(longitudes + index * 2))) / scale
                            var longitudeDegrees = abs(placeLongitude - longitude)
                            if longitudeDegrees > 180 { longitudeDegrees = 360 - longitudeDegrees }
                            let northSouth = Double(placeLatitude &- queryLatitude) / scale * kilometresPerDegree
                            let eastWest = longitudeDegrees * kilometresPerDegree * cosine
                            guard northSouth * northSouth + eastWest * eastWest <= flatLimit else { continue }
                            let distance = PlaceRanking.distanceKilometres(
                                latitude: latitude, longitude: longitude, toLatitude: Double(placeLatitude) / scale,
                                longitude: placeLongitude)
                            guard distance <= radius else { continue }
                            let population = PlacesFile.population(bytes.littleEndianUInt16(populations + index * 2))
                            let pull = PlaceRanking.pull(population: population, distanceKilometres: distance)
                            if let current = best,
                                pull < current.pull
                                    || (pull == current.pull && (distance > current.distance || (distance == current.distance && index > current.index)))
                            {
                                continue
                            }
                            best = (index, pull, distance)
                        }
                    }
                }
            }
        }
        return best?.index
    }

    // MARK: Names

    /// Places whose name or (for places of 100 000 people or more) alternate name is `name`,
    /// ignoring case, accents and repeated blanks; most populous first, each place once.
    /// Usage: `places.places(named: "Zurich").first?.name  // "Zürich"`
    public func places(named name: String) -> [Place] {
        let key = Array(PlaceNameKey.key(name).utf8)
        guard !key.isEmpty else { return [] }
        var indices: [Int] = []
        file.data.withUnsafeBytes { bytes in
            let pool = file.offset(.strings)
            // -1, 0 or 1 as the NUL-terminated string at pool offset `start` (A-Z lowercased when
            // `lowercasing`) sorts before, with or after the key.
            func compare(stringAt start: Int, lowercasing: Bool) -> Int {
                var position = 0
                while true {
                    var stored: UInt8 = start + position < bytes.count ? bytes[start + position] : 0
                    if lowercasing, (0x41...0x5A).contains(stored) { stored += 0x20 }
                    let wanted: UInt8 = position < key.count ? key[position] : 0
                    if stored != wanted { return stored < wanted ? -1 : 1 }
                    if stored == 0 { return 0 }
                    position += 1
                }
            }
            // The rows of one sorted table whose key equals `key`, in table order.
            func matches(count: Int, compare: (Int) -> Int, place: (Int) -> Int) {
                var low = 0, high = count
                while low < high {
                    let middle = (low + high) / 2
                    if compare(middle) < 0 { low = middle + 1 } else { high = middle }
                }
                var row = low
                while row < count, compare(row) == 0 {
                    let index = place(row)
                    if index < file.placeCount { indices.append(index) }
                    row += 1
                }
            }
            // Places whose key is their ASCII name lowercased: the table holds place rows.
            let nameRows = file.offset(.nameRows), names = file.offset(.names)
            func nameRow(_ row: Int) -> Int { bytes.littleEndianUInt24(nameRows + row * 3) }
            matches(
                count: file.nameRowCount,
                compare: { row in
                    let index = nameRow(row)
                    guard index < file.placeCount else { return 1 }
                    return compare(stringAt: pool + bytes.littleEndianUInt24(names + index * 3), lowercasing: true)
                }, place: nameRow)
            // Every other key: a string of the pool and a place row.
            let keys = file.offset(.nameKeys)
            matches(
                count: file.nameKeyCount,
                compare: { row in compare(stringAt: pool + bytes.littleEndianUInt24(keys + row * 6), lowercasing: false) },
                place: { row in bytes.littleEndianUInt24(keys + row * 6 + 3) })
        }
        var seen = Set<Int>()
        return indices.filter { seen.insert($0).inserted }.map(place(at:)).sorted {
            ($0.population, -$0.id) > ($1.population, -$1.id)
        }
    }

    /// Places whose own name (not an alternate one) is `name`, ignoring case, accents and repeated
    /// blanks; most populous first. Alternate names hold transliterations and codes (`Pets` is
    /// Pécs in one of them), too loose for a plain word of a search.
    /// Usage: `places.places(officiallyNamed: "Rome").first?.countryCode  // "IT"`
    public func places(officiallyNamed name: String) -> [Place] {
        let key = PlaceNameKey.key(name)
        return places(named: name).filter { PlaceNameKey.key($0.name) == key }
    }

    /// The country whose English name or ISO 3166-1 alpha-2 code is `name`, ignoring case and
    /// accents. Usage: `places.country(named: "de")?.name  // "Germany"`
    public func country(named name: String) -> Country? {
        countriesByKey[PlaceNameKey.key(name)]
    }

    // MARK: Rows

    /// The place in row `index` (0..<count).
    package func place(at index: Int) -> Place {
        let file = self.file
        return file.data.withUnsafeBytes { bytes in
            let regions = bytes.littleEndianUInt24(file.offset(.regions) + index * 3)
            let admin1Row = regions & 0xFFF, zoneRow = regions >> 12
            var country = Country(code: "", name: "")
            var admin1Code = "", admin1Name = ""
            if admin1Row < file.admin1Count {
                let row = file.offset(.admin1) + admin1Row * 12
                let countryRow = Int(bytes.littleEndianUInt16(row))
                if countryRow < file.countryCount { country = Self.country(at: countryRow, in: file) }
                admin1Code = file.string(at: Int(bytes.littleEndianUInt32(row + 4)), in: bytes)
                admin1Name = file.string(at: Int(bytes.littleEndianUInt32(row + 8)), in: bytes)
            }
            let zone = zoneRow < file.timeZoneCount
                ? file.string(at: Int(bytes.littleEndianUInt32(file.offset(.timeZones) + zoneRow * 4)), in: bytes) : ""
            let coordinates = file.coordinates(ofPlace: index, in: bytes)
            return Place(
                id: bytes.littleEndianUInt24(file.offset(.ids) + index * 3),
                name: file.string(at: bytes.littleEndianUInt24(file.offset(.names) + index * 3), in: bytes),
                latitude: Double(coordinates.latitude) / PlacesFile.coordinateScale,
                longitude: Double(coordinates.longitude) / PlacesFile.coordinateScale,
                population: PlacesFile.population(bytes.littleEndianUInt16(file.offset(.populations) + index * 2)),
                countryCode: country.code, countryName: country.name, admin1Code: admin1Code,
                admin1Name: admin1Name.isEmpty ? nil : admin1Name, timeZoneIdentifier: zone)
        }
    }

    static func country(at index: Int, in file: PlacesFile) -> Country {
        file.data.withUnsafeBytes { bytes in
            let row = file.offset(.countries) + index * 8
            let code = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[row..<row + 2]), as: UTF8.self)
            return Country(code: code, name: file.string(at: Int(bytes.littleEndianUInt32(row + 4)), in: bytes))
        }
    }
}

extension PlaceDirectory {
    /// The place with GeoNames id `id` (as an index stores it), nil when this file has none. A
    /// scan of the ids (under a millisecond): for the few places of a page of results.
    ///
    /// Usage: `let name = places.place(withID: stored.id)?.name`
    public func place(withID id: Int) -> Place? {
        guard id >= 0, id < 1 << 24 else { return nil }
        let file = self.file
        let row: Int? = file.data.withUnsafeBytes { bytes in
            let start = file.offset(.ids)
            for index in 0..<file.placeCount where bytes.littleEndianUInt24(start + index * 3) == id { return index }
            return nil
        }
        return row.map(place(at:))
    }

    /// The first-level divisions called `name` (the file names US states only), ignoring case
    /// and accents, as (country code, admin1 code, name).
    ///
    /// Usage: `places.regions(named: "california").first?.admin1Code  // "CA"`
    public func regions(named name: String) -> [(countryCode: String, admin1Code: String, name: String)] {
        let key = PlaceNameKey.key(name)
        guard !key.isEmpty else { return [] }
        let file = self.file
        return file.data.withUnsafeBytes { bytes in
            (0..<file.admin1Count).compactMap { row in
                let start = file.offset(.admin1) + row * 12
                let regionName = file.string(at: Int(bytes.littleEndianUInt32(start + 8)), in: bytes)
                guard !regionName.isEmpty, PlaceNameKey.key(regionName) == key else { return nil }
                let countryRow = Int(bytes.littleEndianUInt16(start))
                guard countryRow < file.countryCount else { return nil }
                let code = file.string(at: Int(bytes.littleEndianUInt32(start + 4)), in: bytes)
                return (Self.country(at: countryRow, in: file).code, code, regionName)
            }
        }
    }

    /// The population of row `index`, without building a ``Place`` (for tests and tools).
    package func population(at index: Int) -> Int {
        file.data.withUnsafeBytes { PlacesFile.population($0.littleEndianUInt16(file.offset(.populations) + index * 2)) }
    }
}
