import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers `GET /.well-known/apple-app-site-association`, `/.well-known/assetlinks.json` and
/// `/.well-known/webauthn` before any other work, with `WellKnownAnswer`. Most such requests never get
/// here: `WellKnownChannelHandler` answers them on the event loop. This is the path for the rest
/// (one pipelined behind a request of the router's, one with a body, a path written another way).
struct WellKnownMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let aasaPath = "/.well-known/apple-app-site-association"
    static let assetLinksPath = "/.well-known/assetlinks.json"
    static let webauthnPath = "/.well-known/webauthn"
    /// Every file this server answers under `.well-known`.
    static let paths = [aasaPath, assetLinksPath, webauthnPath]

    /// The served copies a path asks for, nil for any other path.
    static func served(_ path: Substring, in files: WellKnownFiles) -> ServedFiles? {
        switch path {
        case aasaPath: files.aasa
        case assetLinksPath: files.assetLinks
        case webauthnPath: files.webauthn
        default: nil
        }
    }
    let files: WellKnownFiles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method == .get || request.method == .head,
            let served = Self.served(Substring(request.uri.path), in: files)
        else {
            return try await next(request, context)
        }
        let answer = WellKnownAnswer(
            served: served, authority: request.head.authority, headers: request.headers,
            isHead: request.method == .head)
        return Response(
            status: answer.status, headers: answer.headers, body: answer.body.map { .init(byteBuffer: $0) } ?? .init())
    }
}
