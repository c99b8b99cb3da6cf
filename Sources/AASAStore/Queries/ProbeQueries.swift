import AASAModel
import Foundation
import PostgresNIO

/// A domain's last origin probe, as the probe left it.
public struct ProbeRecord: Sendable, Equatable {
    public struct Finding: Sendable, Equatable {
        public var url: String
        public var code: String
        public var message: String

        public init(url: String, code: String, message: String) {
            self.url = url
            self.code = code
            self.message = message
        }
    }

    public var checkedAt: Date
    public var ok: Bool
    public var urls: Int
    public var findings: [Finding]
}

extension DBSession {
    /// Replaces the domain's last probe.
    public func recordProbe(domainID: Int64, ok: Bool, urls: Int, findings: [ProbeRecord.Finding]) async throws {
        let json = JSONValue.array(
            findings.map {
                .object(["url": .string($0.url), "code": .string($0.code), "message": .string($0.message)])
            })
        try await run(
            """
            INSERT INTO probe_results (domain_id, ok, urls, findings)
            VALUES (\(domainID), \(ok), \(urls), \(JSONColumn.encode(json))::text::jsonb)
            ON CONFLICT (domain_id) DO UPDATE SET checked_at = now(), ok = excluded.ok, urls = excluded.urls,
                findings = excluded.findings
            """)
    }

    /// The domain's last probe, or nil when it was never probed.
    public func lastProbe(domainID: Int64) async throws -> ProbeRecord? {
        typealias Row = (Date, Bool, Int, String)
        return try await first(
            "SELECT checked_at, ok, urls, findings::text FROM probe_results WHERE domain_id = \(domainID)",
            as: Row.self
        ).map { row in
            let findings = (JSONColumn.decode(row.3).arrayValue ?? []).map { item in
                ProbeRecord.Finding(
                    url: item.objectValue?["url"]?.stringValue ?? "",
                    code: item.objectValue?["code"]?.stringValue ?? "",
                    message: item.objectValue?["message"]?.stringValue ?? "")
            }
            return ProbeRecord(checkedAt: row.0, ok: row.1, urls: row.2, findings: findings)
        }
    }
}
