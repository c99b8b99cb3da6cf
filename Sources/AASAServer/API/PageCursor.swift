import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// The one way every paged list pages (issue 41: revisions said `before`/`nextBefore`, the audit
/// `cursor`/`nextCursor`, domains and teams `after`/`nextAfter`): an opaque `cursor` that the
/// previous page gave as `nextCursor`. Inside, it is the base64 of a letter naming the list and
/// the key the next page starts after, so a cursor of one list is refused by another. The old
/// parameters are still read for one release (deprecated in openapi.yaml); giving both is 400.
enum PageCursor {
    enum List: Character {
        case audit = "e"
        case revisions = "r"
        case domains = "d"
        case teams = "t"
    }

    static func encode(_ list: List, _ key: String) -> String {
        Data("\(list.rawValue)\(key)".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// The key inside a cursor of `list`, nil when the cursor is not one this server gave for it.
    static func decode(_ cursor: String, _ list: List) -> String? {
        var base64 = cursor
        while base64.count % 4 != 0 { base64 += "=" }
        // A key with U+0000 was never given (PostgreSQL holds no such text): refused here, as 400
        // `cursor`, not sent to the database to fail there (issue 49: it was 500).
        guard let data = Data(base64Encoded: base64), !data.contains(0),
            let text = String(data: data, encoding: .utf8), text.first == list.rawValue
        else { return nil }
        return String(text.dropFirst())
    }

    /// The key a page starts after: from `cursor`, or from the deprecated parameter `name`.
    static func key(_ list: List, cursor: String?, deprecated: String?, name: String) throws -> String? {
        if cursor != nil && deprecated != nil {
            throw ServiceError.badRequest(
                "give cursor or \(name), not both (\(name) is deprecated)", field: name, rule: "one-cursor")
        }
        guard let cursor else { return deprecated }
        guard let key = decode(cursor, list), !key.isEmpty else {
            throw ServiceError.badRequest("cursor is not one this server gave", field: "cursor", rule: "cursor")
        }
        return key
    }

    /// A revision list's `before`, from `cursor` or the deprecated `before`.
    static func revisionBefore(cursor: String?, before: Int32?) throws -> Int? {
        if cursor != nil && before != nil {
            throw ServiceError.badRequest(
                "give cursor or before, not both (before is deprecated)", field: "before", rule: "one-cursor")
        }
        guard let cursor else { return try Names.before(before) }
        // Revision numbers are PostgreSQL `integer`s: a key past 2^31-1 was never given, and was 500
        // (`integer out of range`) when it reached the database.
        return Int(try number(.revisions, cursor, as: Int32.self))
    }

    /// The key of a list whose key is a positive number of a column of type `T`; 400 `cursor` for a
    /// key this server never gave, including one past the column's range.
    static func number<T: FixedWidthInteger>(_ list: List, _ cursor: String, as type: T.Type) throws -> T {
        guard let key = decode(cursor, list), let number = T(key), number >= 1 else {
            throw ServiceError.badRequest("cursor is not one this server gave", field: "cursor", rule: "cursor")
        }
        return number
    }
}
