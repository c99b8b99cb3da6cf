import AASAStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/domains/{host}/revisions/{number}/file`: a revision's exact bytes. A plain route (tag
/// `files` in openapi.yaml, left out of generation) so the runtime's JSON encoder never touches them.
struct RevisionFileRoute: Sendable {
    let database: Database

    static let path = "/v1/domains/{host}/revisions/{number}/file"

    func register(on router: Router<AppRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context in
            guard let state = RequestState.current, state.principal != nil else {
                throw APIProblem.unauthorized("send `Authorization: Bearer <token>`")
            }
            let host = try Names.pathHost(context.parameters.get("host") ?? "")
            guard let number = context.parameters.get("number", as: Int.self), number > 0 else {
                throw APIProblem.notFound("no such revision")
            }
            let revision = try await RequestWork(database: database, logger: state.logger).read { session -> RevisionRecord? in
                guard let domain = try await session.domain(host: host) else { return nil }
                return try await session.revision(domainID: domain.id, number: number)
            }
            guard let revision else { throw APIProblem.notFound("\(host) has no revision \(number)") }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.eTag] = "\"sha256-\(revision.sha256)\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: revision.bytes)))
        }
    }
}
