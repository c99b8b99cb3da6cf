import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import HTTPTypes
import Hummingbird
import NIOCore

/// A request with more than one `Host` header is 400 (RFC 9112, 3.2), before anything reads the
/// host: the served file is chosen by it, and two readers of the request must never disagree on it.
/// NIO keeps the first as the request's authority and the others as plain fields.
struct SingleHostMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let host = HTTPField.Name("Host")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.headers[Self.host] == nil else {
            var headers = HTTPFields()
            headers[.contentType] = "application/problem+json"
            let body =
                #"""
                {"status":400,"title":"The request cannot be read","type":"urn:aasad:problem:bad-request",\#
                "detail":"more than one Host header"}
                """#
            return Response(status: .badRequest, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        return try await next(request, context)
    }
}
