import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Hummingbird

/// The OpenAPI runtime writes header values URI-encoded (an ETag `"3"` leaves as `%223%22`), which
/// no HTTP cache or client compares correctly. ETags are ours and ASCII, so they are decoded back.
struct ETagHeaderMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        if let etag = response.headers[.eTag], etag.contains("%"), let decoded = etag.removingPercentEncoding {
            response.headers[.eTag] = decoded
        }
        return response
    }
}
