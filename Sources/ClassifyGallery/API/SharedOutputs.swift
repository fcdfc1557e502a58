import Hummingbird
import TagIndex

// The API answers with the command line's own output types (SQLiteIndex/Output), so
// `GET /api/search` and `classify-tool search --format json` cannot drift apart: the gallery
// fills in the fields only it has (ids, links, colors, timings). GalleryJSON writes them.

extension SearchOutput: ResponseEncodable {}
extension ImageOutput: ResponseEncodable {}
extension SimilarOutput: ResponseEncodable {}
extension PeopleOutput: ResponseEncodable {}
extension StatsOutput: ResponseEncodable {}
extension LabelOutput: ResponseEncodable {}
