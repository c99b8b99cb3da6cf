import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/domains/{host}/revisions/{number}/file` (and `…/assetlinks/…`, `…/webauthn/…`):
/// a revision's exact bytes. A plain route (tag `files` in openapi.yaml, left out of generation) so
/// the runtime's JSON encoder never touches them.
struct RevisionFileRoute: Sendable {
    let database: Database

    static let path = "/v1/domains/{host}/revisions/{number}/file"
    static let assetLinksPath = "/v1/domains/{host}/assetlinks/revisions/{number}/file"
    static let webauthnPath = "/v1/domains/{host}/webauthn/revisions/{number}/file"

    func register(on router: Router<AppRequestContext>) {
        route(on: router, Self.path, what: "revision") { session, domain, number in
            try await session.revision(domainID: domain.id, number: number)
        }
        route(on: router, Self.assetLinksPath, what: "assetlinks.json revision") { session, domain, number in
            try await session.assetLinksRevision(domainID: domain.id, number: number)
        }
        route(on: router, Self.webauthnPath, what: "webauthn revision") { session, domain, number in
            try await session.fileRevision(.webauthn, domainID: domain.id, number: number)
        }
    }

    private func route(
        on router: Router<AppRequestContext>, _ path: String, what: String,
        _ read: @escaping @Sendable (DBSession, DomainRecord, Int) async throws -> RevisionRecord?
    ) {
        router.get(RouterPath(path)) { request, context in
            guard let state = RequestState.current, state.principal != nil else {
                throw ServiceError.unauthorized("send `Authorization: Bearer <token>`")
            }
            let host = try Names.pathHost(context.parameters.get("host") ?? "")
            guard let number = context.parameters.get("number", as: Int.self), number > 0 else {
                throw ServiceError.notFound("no such revision")
            }
            let revision = try await RequestWork(database: database, logger: state.logger).read {
                session -> RevisionRecord? in
                guard let domain = try await session.domain(host: host) else { return nil }
                return try await read(session, domain, number)
            }
            guard let revision else { throw ServiceError.notFound("\(host) has no \(what) \(number)") }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.eTag] = "\"sha256-\(revision.sha256)\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: revision.bytes)))
        }
    }
}
