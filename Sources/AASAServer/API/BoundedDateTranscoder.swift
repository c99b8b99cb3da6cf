import Foundation
import OpenAPIRuntime

/// A date-time a request sets, as the contract's `format: date-time` is read, bounded to years
/// 0001-9999 (issue 49): the one gate every date of every operation passes at the edge. ISO 8601
/// readers take six-digit and signed years (`300000-01-01T00:00:00Z`), which no field of this API
/// means and which PostgreSQL's driver could not even bind; such a value is refused here, as 400
/// naming the field (`RequestBodyMiddleware` finds which), before any service sees it.
struct BoundedDateTranscoder: DateTranscoder {
    private let inner = ISO8601DateTranscoder()

    func encode(_ date: Date) throws -> String { try inner.encode(date) }

    /// Judged by its text: four digits of year, 0001 to 9999, then what RFC 3339 asks. (The seconds
    /// of year 1 depend on the calendar a reader uses before 1582: the text does not.)
    func decode(_ text: String) throws -> Date {
        let year = text.utf8.prefix(5)
        guard text.utf8.count <= 64, year.count == 5, year.last == UInt8(ascii: "-"),
            year.dropLast().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            !year.dropLast().allSatisfy({ $0 == UInt8(ascii: "0") }), let date = try? inner.decode(text)
        else { throw DateOutOfRange(text: String(text.prefix(64))) }
        return date
    }
}

/// A date-time that is not one this API takes: unreadable, or outside years 0001-9999.
struct DateOutOfRange: Error, Sendable, CustomStringConvertible {
    var text: String
    var description: String { "\(text) is not a date-time in years 0001-9999" }

    /// The first `DateOutOfRange` inside `error`, through the OpenAPI runtime's and the
    /// decoders' wrappers (some of them internal types, so they are walked by reflection).
    static func within(_ error: any Error) -> DateOutOfRange? {
        func search(_ value: Any, depth: Int) -> DateOutOfRange? {
            if let found = value as? DateOutOfRange { return found }
            guard depth < 8 else { return nil }
            if let server = value as? ServerError { return search(server.underlyingError, depth: depth + 1) }
            for child in Mirror(reflecting: value).children {
                if let found = search(child.value, depth: depth + 1) { return found }
            }
            return nil
        }
        return search(error, depth: 0)
    }
}
