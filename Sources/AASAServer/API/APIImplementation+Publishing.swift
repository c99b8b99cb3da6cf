import AASAAPI
import AASAModel
import AASAStore
import Foundation
import Logging
import OpenAPIRuntime

extension APIImplementation {
    /// Admin, or a write token of a team holding a grant on the domain.
    func authorizePublish(_ principal: Principal) -> @Sendable (DBSession, DomainRecord) async throws -> Void {
        { session, domain in
            if principal.isAdmin { return }
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot publish") }
            guard let teamID = principal.teamID, try await session.grant(domainID: domain.id, teamID: teamID) != nil else {
                throw APIProblem.forbidden("only an admin or a team holding a grant on \(domain.host) may publish it")
            }
        }
    }

    func actor(_ principal: Principal) -> Actor {
        Actor(principal, requestID: state.requestID)
    }

    static func reason(_ body: Components.Schemas.PublishRequest) throws -> String {
        let reason = body.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw APIProblem.invalid(field: "/reason", rule: "non-empty", "say why you publish") }
        guard body.reason.count <= 1000 else {
            throw APIProblem.badRequest("a reason is at most 1000 characters", field: "/reason", rule: "maxLength")
        }
        return reason
    }

    func publishDomain(_ input: Operations.PublishDomain.Input) async throws -> Operations.PublishDomain.Output {
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let outcome = try await publisher.publish(host: try Names.pathHost(input.path.host), reason: try Self.reason(body),
                                                  source: .draft, actor: actor(principal), logger: logger,
                                                  authorize: authorizePublish(principal))
        let result = Self.publishResult(outcome)
        return outcome.created ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    func rollbackRevision(_ input: Operations.RollbackRevision.Input) async throws -> Operations.RollbackRevision.Output {
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let outcome = try await publisher.publish(host: try Names.pathHost(input.path.host), reason: try Self.reason(body),
                                                  source: .revision(Int(input.path.number), team: principal.isAdmin ? nil : principal.teamName),
                                                  actor: actor(principal),
                                                  logger: logger, authorize: authorizePublish(principal))
        let result = Self.publishResult(outcome)
        return outcome.created ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    func listRevisions(_ input: Operations.ListRevisions.Input) async throws -> Operations.ListRevisions.Output {
        _ = try principal()
        let limit = try Names.limit(input.query.limit, default: 50)
        if let before = input.query.before, before < 1 {
            throw APIProblem.badRequest("before is a revision number, 1 or more", field: "before", rule: "minimum")
        }
        let (host, items) = try await read { session in
            let domain = try await Lookup.domain(input.path.host, session: session)
            return (domain.host, try await session.listRevisions(domainID: domain.id, before: input.query.before.map(Int.init), limit: limit))
        }
        let next = items.count == limit && (items.last?.number ?? 0) > 1 ? items.last?.number : nil
        return .ok(.init(body: .json(.init(items: try items.map { try Self.revision($0, host: host, withDiff: false) }, nextBefore: next))))
    }

    func getRevision(_ input: Operations.GetRevision.Input) async throws -> Operations.GetRevision.Output {
        _ = try principal()
        let (host, revision) = try await read { session in
            let domain = try await Lookup.domain(input.path.host, session: session)
            guard let revision = try await session.revision(domainID: domain.id, number: Int(input.path.number)) else {
                throw APIProblem.notFound("\(domain.host) has no revision \(input.path.number)")
            }
            return (domain.host, revision)
        }
        return .ok(.init(headers: .init(eTag: "\"sha256-\(revision.sha256)\""),
                         body: .json(try Self.revision(revision, host: host, withDiff: true))))
    }

    func diffRevisions(_ input: Operations.DiffRevisions.Input) async throws -> Operations.DiffRevisions.Output {
        let principal = try principal()
        let (host, old, new) = try await read { session -> (String, [UInt8], [UInt8]) in
            let domain = try await Lookup.domain(input.path.host, session: session)
            func bytes(_ number: Int) async throws -> [UInt8] {
                guard let r = try await session.revision(domainID: domain.id, number: number) else {
                    throw APIProblem.notFound("\(domain.host) has no revision \(number)")
                }
                return r.bytes
            }
            guard input.query.from >= 1 else {
                throw APIProblem.badRequest("from is a revision number, 1 or more", field: "from", rule: "minimum")
            }
            let old = try await bytes(Int(input.query.from))
            let new: [UInt8]
            if input.query.to == "draft" {
                new = try await DomainDocument.render(try await draftSnapshot(domain, principal: principal, session: session)).bytes
            } else if let number = Int(input.query.to), number > 0 {
                new = try await bytes(number)
            } else {
                throw APIProblem.badRequest("`to` is a revision number or `draft`", field: "to", rule: "format")
            }
            return (domain.host, old, new)
        }
        let diff = DocumentDiff(from: try AASADocument(json: old), to: try AASADocument(json: new), host: host)
        return .ok(.init(body: .json(.init(from: Int(input.query.from), to: input.query.to, diff: try OpenAPIValueContainer(json: diff.jsonValue)))))
    }

    func matchURL(_ input: Operations.MatchURL.Input) async throws -> Operations.MatchURL.Output {
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        guard let components = URLComponents(string: body.url), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let rawHost = components.host, !rawHost.isEmpty else {
            throw APIProblem.invalid(field: "/url", rule: "url", "an absolute http(s) URL with a host")
        }
        let urlHost = (try? HostName.normalized(rawHost)) ?? rawHost.lowercased()
        let source = body.source ?? .published
        let answer = try await read { session -> (host: String, revision: Int?, bytes: [UInt8]?, document: DomainDocument?, parent: String?) in
            if let id = try await session.domainID(answeringTo: urlHost), let domain = try await session.domain(id: id) {
                switch source {
                case .draft:
                    let rendered = try await DomainDocument.render(try await draftSnapshot(domain, principal: principal, session: session))
                    return (domain.host, nil, rendered.bytes, rendered, nil)
                case .published:
                    let revision = try await domain.currentRevision.asyncMap { try await session.revision(domainID: domain.id, number: $0) } ?? nil
                    return (domain.host, revision?.number, revision?.bytes, nil, nil)
                }
            }
            // No domain of its own: an app whose entitlement is `applinks:*.parent` reads the parent's file.
            var labels = urlHost.split(separator: ".").dropFirst()
            while labels.count >= 2 {
                let parent = labels.joined(separator: ".")
                if try await session.domainID(answeringTo: parent) != nil { return (urlHost, nil, nil, nil, parent) }
                labels = labels.dropFirst()
            }
            throw APIProblem.notFound("no domain answers to \(urlHost), nor a parent domain for a wildcard entitlement")
        }
        var result = Components.Schemas.MatchResult(url: body.url, host: answer.host, source: source == .draft ? .draft : .published,
                                                    revision: answer.revision, decisions: [], wildcardParent: answer.parent)
        guard let bytes = answer.bytes else {
            if answer.parent == nil && source == .published {
                throw APIProblem.notFound("\(answer.host) has not been published yet; ask with source: draft")
            }
            return .ok(.init(body: .json(result)))
        }
        let document = try AASADocument(json: bytes)
        // The file is served for the URL's own host (an alias included), so the host check uses it.
        let resolution = AASAMatcher(document).resolve(url: body.url, domain: urlHost)
        result.appID = resolution.appID
        result.decisions = resolution.decisions.map {
            .init(appID: $0.appID, decision: $0.decision.decision == .match ? .match : $0.decision.decision == .exclude ? .exclude : .none)
        }
        if let location = resolution.rule {
            let ref = answer.document?.ruleRef(location)
            result.rule = .init(team: ref?.team, appID: resolution.appID ?? "", ruleID: ref?.ruleID, path: location.pointer.description)
        }
        return .ok(.init(body: .json(result)))
    }

    static func revision(_ r: RevisionRecord, host: String, withDiff: Bool) throws -> Components.Schemas.Revision {
        .init(host: host, number: r.number, sha256: r.sha256, byteCount: r.byteCount,
              actor: .init(tokenID: r.actorToken?.uuidString.lowercased(), name: r.actorName), reason: r.reason,
              createdAt: r.createdAt, rollbackOf: r.rollbackOf,
              diff: withDiff ? try r.diff.map { try OpenAPIValueContainer(json: $0) } : nil)
    }

    static func publishResult(_ o: Publisher.Outcome) -> Components.Schemas.PublishResult {
        .init(revision: (try? revision(o.revision, host: o.host, withDiff: true)) ?? (try! revision(o.revision, host: o.host, withDiff: false)),
              created: o.created,
              targets: o.targets.map { .init(webRoot: $0.webRoot, ok: $0.ok, error: $0.error, paths: $0.paths) },
              warnings: o.warnings.map(Components.Schemas.Finding.init))
    }
}
