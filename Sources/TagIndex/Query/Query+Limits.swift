extension Query {
    /// Refuses pages, limits and filter lists a search does not take, on either backend.
    ///
    /// Usage: `try query.checkLimits()`
    package func checkLimits() throws {
        guard (1...1000).contains(limit) else {
            throw TagIndexError.invalidInput("a page holds 1 to 1000 results; got \(limit)")
        }
        guard page >= 1, page <= 1_000_000 else {
            throw TagIndexError.invalidInput("pages are numbered from 1; got \(page)")
        }
        let most = ImageFilters.maximumFolderOrTypeCount
        guard filters.folders.count <= most, filters.fileTypes.count <= most else {
            throw TagIndexError.invalidInput("a search takes at most \(most) folders and \(most) file types")
        }
    }
}
