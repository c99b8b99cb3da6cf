/// Keyset paging for the registry's lists (domains by host, teams by name): a page is at most
/// `limit` items after the previous page's last key, and says the key to ask for next.
package struct PageRequest: Sendable {
    package static let defaultLimit = 100
    package static let maxLimit = 500

    package var after: String?
    package var limit: Int

    /// `limit` within 1…500 (the contract's bounds; the generated code does not check them): 400
    /// like any query parameter out of its schema.
    package init(after: String?, limit: Int?) throws {
        let limit = limit ?? Self.defaultLimit
        guard (1...Self.maxLimit).contains(limit) else {
            throw ServiceError.badRequest("limit is 1 to \(Self.maxLimit)", field: "limit", rule: "range")
        }
        if let after, after.utf8.count > 1024 {
            throw ServiceError.badRequest("after is at most 1024 bytes", field: "after", rule: "maxLength")
        }
        self.after = after
        self.limit = limit
    }

    /// Rows to read: one more than the page, to know whether another page follows.
    package var fetch: Int { limit + 1 }

    package func cut<Item>(_ rows: [Item], key: (Item) -> String) -> Page<Item> {
        guard rows.count > limit else { return Page(items: rows, next: nil) }
        let items = Array(rows.prefix(limit))
        return Page(items: items, next: items.last.map(key))
    }
}

package struct Page<Item> {
    package var items: [Item]
    /// The `after` of the next page; nil on the last.
    package var next: String?

    package init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }
}

extension Page: Sendable where Item: Sendable {}
