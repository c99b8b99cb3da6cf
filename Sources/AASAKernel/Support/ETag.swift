import AASAModel
import AASAStore
import Foundation
import Logging

/// Versions as ETags, and the `If-Match` check every write makes before changing anything.
package enum ETag {
    package static func of(_ version: Int64) -> String { "\"\(version)\"" }

    package static func check(_ ifMatch: String?, version: Int64) throws {
        try check(ifMatch, current: of(version))
    }

    /// `If-Match` against any current tag (a version, or a manifest's state tag).
    package static func check(_ ifMatch: String?, current: String) throws {
        guard let ifMatch else { return }
        guard ifMatch.utf8.count <= 100 else {
            throw ServiceError.badRequest("If-Match is at most 100 characters", field: "If-Match", rule: "maxLength")
        }
        let tags = ifMatch.split(separator: ",").map { tag -> String in
            var t = tag.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("W/") { t.removeFirst(2) }
            return t
        }
        if tags.contains("*") || tags.contains(current) { return }
        throw ServiceError.preconditionFailed(current: current)
    }
}
