import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import HTTPTypes
import Hummingbird
// The runtime's `Converter` (its Accept check and parameter decoding) is what the generated server
// calls; reusing it keeps these routes' refusals the generated ones.
@_spi(Generated) import OpenAPIRuntime
import Synchronization

/// The hot reads, answered by routes of our own that call the same `APIProtocol` handler the
/// generated server calls, and write its answer with `AnswerEncoder` instead of Foundation's
/// `JSONEncoder` (the profile's largest frame of an authenticated read, which the runtime offers no
/// way to replace). The bytes are the generated server's own (`AnswerEncoderTests`,
/// `FastReadRouteTests`); the OpenAPI transport skips these paths (`RouteRecordingTransport`).
///
/// Only reads whose answer is one JSON body without headers, with path parameters alone and
/// handlers that throw rather than return a non-200 case, are here: everything else a generated
/// server does for them (the `Accept` check, the parameters' URI decoding) is done by the
/// runtime's own `Converter`.
struct FastReadRoutes: Sendable {
    let api: APIImplementation
    /// The runtime's converter and our encoder, built once: a `Converter` makes four Foundation
    /// coders, and the transcoder a date formatter, which no request needs its own of.
    let converter: Converter
    let encoder: AnswerEncoder
    /// The encoded answers of the read model (issue 43), per token and path.
    let answers: AnswerCache

    init(api: APIImplementation, configuration: Configuration, answers: AnswerCache = AnswerCache(generation: .off)) {
        self.api = api
        self.converter = Converter(configuration: configuration)
        self.encoder = AnswerEncoder(dateTranscoder: configuration.dateTranscoder)
        self.answers = answers
    }

    typealias Answer = @Sendable (APIImplementation, Parameters) async throws -> any Encodable & Sendable

    /// Each route: its Hummingbird path (as the generated server registers it), its answer, and
    /// whether that answer never changes (encoded once, with its tag, for the life of the process).
    static let routes: [(path: String, answer: Answer, constant: Bool)] = [
        // A load balancer's probe, asked more than anything: no runtime in its way (issue 43).
        ("/health/live", { api, _ in try await api.liveness(.init()).ok.body.json }, true),
        ("/v1/whoami", { api, _ in try await api.whoami(.init()).ok.body.json }, false),
        (
            "/v1/teams/{team}/apps",
            { api, p in try await api.listTeamApps(.init(path: .init(team: p["team"]))).ok.body.json }, false
        ),
        (
            "/v1/teams/{team}/tokens",
            { api, p in try await api.listTokens(.init(path: .init(team: p["team"]))).ok.body.json }, false
        ),
        (
            "/v1/teams/{team}/grants",
            { api, p in try await api.listTeamGrants(.init(path: .init(team: p["team"]))).ok.body.json }, false
        ),
        (
            "/v1/domains/{host}/grants",
            { api, p in try await api.listGrants(.init(path: .init(host: p["host"]))).ok.body.json }, false
        ),
        (
            "/v1/domains/{host}/cdn",
            { api, p in try await api.getCDNStatus(.init(path: .init(host: p["host"]))).ok.body.json }, false
        ),
        (
            "/v1/domains/{host}/suspensions",
            { api, p in try await api.listSuspensions(.init(path: .init(host: p["host"]))).ok.body.json }, false
        ),
        (
            "/v1/domains/{host}/expectations",
            { api, p in try await api.listExpectations(.init(path: .init(host: p["host"]))).ok.body.json }, false
        ),
    ]

    static var paths: Set<String> { Set(routes.map(\.path)) }

    /// A request's path parameters, URI-decoded by the runtime as the generated server decodes them.
    struct Parameters: Sendable {
        let raw: [String: Substring]
        let converter: Converter
        let request: HTTPRequest

        subscript(name: String) -> String {
            get throws {
                do {
                    return try converter.getPathParameterAsURI(in: raw, name: name, as: String.self)
                } catch {
                    throw FastReadRoutes.refusal(error, request)
                }
            }
        }
    }

    /// The runtime's refusal as the generated server wraps it (its status, its description).
    static func refusal(_ error: any Error, _ request: HTTPRequest) -> ServerError {
        ServerError(
            operationID: request.path ?? "", request: request, requestBody: nil, requestMetadata: .init(),
            causeDescription: String(describing: error), underlyingError: error)
    }

    func register(on router: Router<AppRequestContext>) {
        for route in Self.routes {
            let constant = route.constant ? ConstantAnswer() : nil
            router.get(RouterPath(route.path)) { request, context in
                try await respond(request, context, route.answer, constant: constant)
            }
        }
    }

    /// The answer of a route whose answer never changes, once it has been made.
    final class ConstantAnswer: Sendable {
        private let kept = Mutex<AnswerCache.Answer?>(nil)
        var answer: AnswerCache.Answer? { kept.withLock { $0 } }
        func keep(_ answer: AnswerCache.Answer) { kept.withLock { $0 = answer } }
    }

    private func respond(
        _ request: Request, _ context: AppRequestContext, _ answer: Answer, constant: ConstantAnswer?
    ) async throws -> Response {
        let contentType = "application/json"
        do {
            try converter.validateAcceptIfPresent(contentType, in: request.headers)
        } catch {
            throw Self.refusal(error, request.head)  // 406, or 400 for a malformed Accept
        }
        if let kept = constant?.answer { return Self.response(kept, request) }
        // One entry per token and path: the answer is what that token may see there.
        let key = RequestState.current?.principal.map { Array("\($0.tokenID)\u{0}\(request.uri.path)".utf8) }
        if let key, let kept = await answers.answer(key, synced: RequestState.current?.syncedGeneration) {
            return Self.response(kept, request)
        }
        // Read before the database is: a change committed after this moves the generation.
        let stamp = answers.generation.current
        let raw = [String: Substring](context.parameters.map { (String($0.0), $0.1) }) { first, _ in first }
        let body = try await answer(api, Parameters(raw: raw, converter: converter, request: request.head))
        let bytes = try encoder.bytes(body)
        // Kept only for a principal's read (every other route has one) and while listening.
        let fresh = answers.remember(bytes, key: key ?? [], generation: key == nil ? nil : stamp)
        constant?.keep(fresh)
        return Self.response(fresh, request)
    }

    /// The answer with its strong ETag; a 304 without a body when `If-None-Match` names it.
    static func response(_ answer: AnswerCache.Answer, _ request: Request) -> Response {
        var headers: HTTPFields = [.eTag: answer.etag]
        if let wanted = request.headers[.ifNoneMatch], Self.matches(wanted, answer.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.bytes)))
    }

    /// RFC 9110's weak comparison for `If-None-Match`: `*`, or any listed tag with the same opaque
    /// part (a `W/` prefix ignored).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.drop { $0 == " " || $0 == "\t" }
            while tag.last == " " || tag.last == "\t" { tag.removeLast() }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}
