import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private typealias RuleSetRow = (Int64, Int64, String, String, String, Int64, Bool)

    private func ruleSets(_ query: PostgresQuery) async throws -> [RuleSetRecord] {
        try await all(query, as: RuleSetRow.self).map {
            RuleSetRecord(
                domainID: $0.0, appPK: $0.1, appID: $0.2, teamName: $0.3,
                rules: Self.rules(from: JSONColumn.decode($0.4)), version: $0.5, manifestDecides: $0.6)
        }
    }

    static func rules(from value: JSONValue) -> [StoredRule] {
        (value.arrayValue ?? []).compactMap { item in
            guard let object = item.objectValue, let id = object["id"]?.stringValue.flatMap(UUIDText.parse),
                let component = object["component"]
            else { return nil }
            return StoredRule(id: id, component: component)
        }
    }

    static func json(_ rules: [StoredRule]) -> String {
        JSONColumn.encode(
            .array(
                rules.map {
                    .object(["id": .string($0.id.uuidString.lowercased()), "component": $0.component])
                }))
    }

    public func listRuleSets(domainID: Int64) async throws -> [RuleSetRecord] {
        try await ruleSets(
            """
            SELECT r.domain_id, r.app_id, a.app_id, t.name, r.rules::text, r.version, r.manifest_decides
            FROM rule_sets r JOIN apps a ON a.id = r.app_id JOIN teams t ON t.id = a.team_id
            WHERE r.domain_id = \(domainID) ORDER BY a.app_id
            """)
    }

    /// The app's rules on the domain; an empty set with version 0 when there are none.
    public func ruleSet(domainID: Int64, app: AppRecord) async throws -> RuleSetRecord {
        try await ruleSets(
            """
            SELECT r.domain_id, r.app_id, a.app_id, t.name, r.rules::text, r.version, r.manifest_decides
            FROM rule_sets r JOIN apps a ON a.id = r.app_id JOIN teams t ON t.id = a.team_id
            WHERE r.domain_id = \(domainID) AND r.app_id = \(app.id)
            """
        ).first
            ?? RuleSetRecord(
                domainID: domainID, appPK: app.id, appID: app.appID, teamName: app.teamName, rules: [], version: 0,
                manifestDecides: false)
    }

    /// Stores the app's rules on the domain (or, for an Android app, that its manifest decides:
    /// no rules). An emptied set keeps its row, so its version never goes back and an old ETag can
    /// never match again.
    public func saveRuleSet(
        domainID: Int64, appPK: Int64, rules: [StoredRule], manifestDecides: Bool = false, previousVersion: Int64
    ) async throws -> Int64 {
        let next = previousVersion + 1
        try await write(
            """
            INSERT INTO rule_sets (domain_id, app_id, rules, version, manifest_decides) VALUES (\(domainID), \
            \(appPK), \(Self.json(rules))::text::jsonb, \(next), \(manifestDecides))
            ON CONFLICT (domain_id, app_id) DO UPDATE SET rules = excluded.rules, version = excluded.version, \
            manifest_decides = excluded.manifest_decides, updated_at = now()
            """)
        return next
    }
}
