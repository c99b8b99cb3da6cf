import Foundation
import PostgresNIO

/// The stored first answer to a POST with an Idempotency-Key.
public struct IdempotentResponse: Sendable, Equatable {
    public var fingerprint: [UInt8]
    /// nil while the first request is still being handled.
    public var status: Int?
    public var contentType: String?
    public var etag: String?
    public var location: String?
    public var body: [UInt8]

    public init(
        fingerprint: [UInt8], status: Int?, contentType: String?, etag: String?, location: String?, body: [UInt8]
    ) {
        self.fingerprint = fingerprint
        self.status = status
        self.contentType = contentType
        self.etag = etag
        self.location = location
        self.body = body
    }
}

extension DBSession {
    /// Claims `key` for a new request. Returns nil when the claim is ours, or the existing record.
    public func claimIdempotencyKey(tokenID: UUID, key: String, fingerprint: [UInt8]) async throws
        -> IdempotentResponse?
    {
        let inserted = try await first(
            """
            INSERT INTO idempotency_keys (token_id, key, fingerprint) VALUES (\(tokenID), \(key), \(Data(fingerprint)))
            ON CONFLICT DO NOTHING RETURNING 1
            """, as: Int.self)
        if inserted != nil { return nil }
        typealias Row = (Data, Int?, String?, String?, String?, Data?)
        guard
            let row = try await first(
                """
                SELECT fingerprint, status, content_type, etag, location, body FROM idempotency_keys
                WHERE token_id = \(tokenID) AND key = \(key)
                """, as: Row.self)
        else { return nil }
        return IdempotentResponse(
            fingerprint: [UInt8](row.0), status: row.1, contentType: row.2, etag: row.3,
            location: row.4, body: row.5.map { [UInt8]($0) } ?? [])
    }

    public func completeIdempotencyKey(tokenID: UUID, key: String, response: IdempotentResponse) async throws {
        try await run(
            """
            UPDATE idempotency_keys SET status = \(response.status), content_type = \(response.contentType),
            etag = \(response.etag), location = \(response.location), body = \(Data(response.body))
            WHERE token_id = \(tokenID) AND key = \(key)
            """)
    }

    /// Forgets a claim whose request failed before answering, so a retry runs again.
    public func releaseIdempotencyKey(tokenID: UUID, key: String) async throws {
        try await run("DELETE FROM idempotency_keys WHERE token_id = \(tokenID) AND key = \(key) AND status IS NULL")
    }

    /// Keys older than `age` are forgotten (called now and then by the server).
    public func expireIdempotencyKeys(olderThan seconds: Int) async throws {
        try await run(
            "DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => \(Double(seconds)))")
    }
}
