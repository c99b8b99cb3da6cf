/// The events webhooks deliver, by stable name, and the sentence a chat channel shows for each.
/// Most are audit actions that someone outside the service must hear about: AASAStore's `appendAudit`
/// writes the webhook event (`init(auditAction:…)`) in the transaction of the audit event that
/// records the change.
public struct WebhookEvent: Sendable, Equatable {
    public var name: String
    public var domain: String?
    public var team: String?
    public var actor: String
    /// Slack-compatible: one sentence, no markup beyond what plain text carries.
    public var text: String
    public var data: JSONValue

    public init(name: String, domain: String?, team: String?, actor: String, text: String, data: JSONValue) {
        self.name = name
        self.domain = domain
        self.team = team
        self.actor = actor
        self.text = text
        self.data = data
    }

    /// Every event name, for the API's filter check and the documentation.
    public static let names: [String] = [
        "domain.publish", "domain.rollback", "assetlinks.publish", "assetlinks.rollback", "publish.reconcile",
        "publish.target-failed", "policy.override", "team.suspend", "team.resume", "cdn.stale", "cdn.converged",
        "cdn.error", "google.stale", "google.converged", "monitor.error", "expectation.broken", "webauthn.publish",
        "webauthn.rollback", "passkeys.origins-changed",
    ]

    /// The webhook event an audit event raises, or nil for an action nobody is told about.
    public init?(
        auditAction action: String, domain: String?, team: String?, actor: String, entityID: String, after: JSONValue?
    ) {
        let on = domain.map { " on \($0)" } ?? ""
        let revision = after?.objectValue?["number"].map { " revision \(JSONWriter(style: .compact).string($0))" } ?? ""
        let text: String
        switch action {
        case "domain.publish": text = "\(actor) published\(revision) of the AASA\(on)"
        case "domain.rollback": text = "\(actor) rolled the AASA\(on) back\(revision.isEmpty ? "" : " as\(revision)")"
        case "assetlinks.publish": text = "\(actor) published\(revision) of assetlinks.json\(on)"
        case "assetlinks.rollback":
            text = "\(actor) rolled assetlinks.json\(on) back\(revision.isEmpty ? "" : " as\(revision)")"
        case "webauthn.publish": text = "\(actor) published\(revision) of /.well-known/webauthn\(on)"
        case "webauthn.rollback":
            text = "\(actor) rolled /.well-known/webauthn\(on) back\(revision.isEmpty ? "" : " as\(revision)")"
        case "passkeys.origins-changed":
            text = "the origins relying party \(entityID)'s passkey server must accept changed (\(actor))"
        case "publish.reconcile": text = "a web root\(on) had drifted from the current revision and was rewritten"
        case "policy.override": text = "\(actor) forced a change\(on) past a policy"
        case "team.suspend": text = "team \(team ?? entityID) was suspended\(on) by \(actor)"
        case "team.resume": text = "team \(team ?? entityID) was resumed\(on) by \(actor)"
        default: return nil
        }
        self.init(
            name: action, domain: domain, team: team, actor: actor, text: text,
            data: .object(["entity": .string(entityID), "after": after ?? .null]))
    }
}
