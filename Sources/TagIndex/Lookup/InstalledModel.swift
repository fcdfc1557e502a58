import GRDB

extension SQLiteIndex {
    /// The model stamp (`name@version`, see ``ModelStamp/description``) of the taxonomy last
    /// installed with ``replaceTaxonomy(_:model:vocabulary:)``; nil for an index never written.
    /// An indexer reads it to keep the options an index was built with.
    ///
    /// ```swift
    /// let stamp = try index.installedModel()   // "efficientnet-lite0@1+taxonomy.edb3ecbe"
    /// ```
    public func installedModel() throws -> String? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'taxonomy_model'")
        }
    }
}
