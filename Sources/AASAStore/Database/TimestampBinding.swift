import Foundation
import NIOCore
import PostgresNIO

/// A `Date` that PostgreSQL's `timestamptz` cannot hold, refused while the query is built.
public struct TimestampOutOfRange: Error, Sendable, Equatable, CustomStringConvertible {
    /// Seconds since 1970, as given.
    public var secondsSince1970: Double

    public var description: String {
        "a date \(secondsSince1970) s from 1970 lies outside what PostgreSQL's timestamptz holds"
    }
}

/// Every `\(date)` in a query of this package binds through here, never through PostgresNIO's own
/// `Date` encoding: that one converts microseconds since 2000 with `Int64(_:)`, which traps for a
/// date past the year ~294,000 (or NaN) and ends the whole process (issue 49). These overloads are
/// concrete, so Swift prefers them to PostgresNIO's generic ones, and they throw: a date from
/// anywhere, now or later, can fail only its own request. The range is PostgreSQL's own
/// (4714 BC to 294276 AD); the API bounds what a request may set far tighter, at the edge.
extension PostgresQuery.StringInterpolation {
    public mutating func appendInterpolation(_ value: Date) throws {
        appendInterpolation(try CheckedTimestamp(value))
    }

    public mutating func appendInterpolation(_ value: Date?) throws {
        appendInterpolation(try value.map(CheckedTimestamp.init))
    }
}

/// A timestamp known to fit PostgreSQL's binary `timestamptz`: microseconds since 2000-01-01 UTC.
public struct CheckedTimestamp: PostgresNonThrowingEncodable, Sendable, Equatable {
    /// PostgreSQL's `MIN_TIMESTAMP` and `END_TIMESTAMP` (src/include/datatype/timestamp.h).
    static let minimumMicroseconds: Int64 = -211_813_488_000_000_000
    static let endMicroseconds: Int64 = 9_223_371_331_200_000_000
    static let postgresEpoch: Double = 946_684_800

    public let microsecondsSince2000: Int64

    public init(_ date: Date) throws(TimestampOutOfRange) {
        let micro = (date.timeIntervalSince1970 - Self.postgresEpoch) * 1_000_000
        // Compared as Double before any conversion: NaN fails both comparisons.
        guard micro >= Double(Self.minimumMicroseconds), micro < Double(Self.endMicroseconds) else {
            throw TimestampOutOfRange(secondsSince1970: date.timeIntervalSince1970)
        }
        microsecondsSince2000 = Int64(micro)
    }

    public static var psqlType: PostgresDataType { .timestamptz }
    public static var psqlFormat: PostgresFormat { .binary }

    public func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        byteBuffer.writeInteger(microsecondsSince2000)
    }
}
