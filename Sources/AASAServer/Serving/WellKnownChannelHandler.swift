import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers the served files on the connection's event loop, before Hummingbird hands the request
/// to its connection task (issue 23's profile: 40% of the served file's samples were the hops
/// between the event loop and that task on the concurrency pool). Placed after Hummingbird's
/// HTTP codec, one instance per connection (`HTTP1Channel.Configuration.additionalChannelHandlers`
/// builds the list anew for each channel; its state is this connection's alone).
///
/// It answers only what the router would answer the same way, with the same `WellKnownAnswer`,
/// and lets everything else through to the router untouched:
/// - only when no request it let through is still unanswered, so answers keep the order of the
///   requests on a keep-alive connection (an API request pipelined ahead of the file is answered
///   first, by the router);
/// - only GET or HEAD of exactly one of the two paths (a query allowed), with one Host header and
///   no body.
///
/// It keeps the back-pressure the router path has (issue 41: a client that pipelined requests and
/// never read grew aasad by the file's size per request): it answers only while the channel is
/// writable. Parts that arrive while it is not wait here, in order, and no further read is asked
/// of the socket until they are answered, so what waits is bounded by one read of requests and
/// what is unsent by the channel's high-water mark plus one answer.
final class WellKnownChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let files: WellKnownFiles
    private let serverName: String
    /// Requests let through to the router whose answer's end has not been written yet.
    private var unanswered = 0
    /// The rest of a request answered here (its end) is dropped, not let through.
    private var dropping = false
    private var date = HTTPDate()
    /// Request parts that arrived while answers could not be written, in arrival order.
    private var waiting = CircularBuffer<HTTPRequestPart>()
    /// A read the pipeline asked for while parts were waiting: passed on once they are answered.
    private var readDeferred = false
    /// Set while `drain` runs: a write inside it can report writability again, re-entrantly.
    private var draining = false

    init(files: WellKnownFiles, serverName: String) {
        self.files = files
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard waiting.isEmpty, context.channel.isWritable else {
            waiting.append(part)
            return
        }
        handle(part, context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Holds the socket's next read back while answers cannot be written or parts still wait.
    func read(context: ChannelHandlerContext) {
        guard waiting.isEmpty, context.channel.isWritable else {
            readDeferred = true
            return
        }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        waiting.removeAll()
        context.fireChannelInactive()
    }

    /// Handles the waiting parts while the channel stays writable, then lets the deferred read go.
    private func drain(context: ChannelHandlerContext) {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while context.channel.isWritable, let part = waiting.popFirst() {
            handle(part, context: context)
        }
        if waiting.isEmpty, readDeferred, context.channel.isWritable {
            readDeferred = false
            context.read()
        }
    }

    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let request):
            if unanswered == 0, let served = servedFiles(for: request) {
                dropping = true
                answer(request, from: served, context: context)
                return
            }
            unanswered += 1
        case .body, .end:
            if dropping {
                if case .end = part { dropping = false }
                return
            }
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered -= 1 }
        context.write(data, promise: promise)
    }

    /// The files this request asks for, if it is one this handler answers.
    private func servedFiles(for request: HTTPRequest) -> ServedFiles? {
        guard request.method == .get || request.method == .head, let target = request.path else { return nil }
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? Substring(target)
        guard let served = WellKnownMiddleware.served(path, in: files) else { return nil }
        let fields = request.headerFields
        // A second Host is the router's 400 (`SingleHostMiddleware`); a body is the router's to read.
        guard fields[SingleHostMiddleware.host] == nil, fields[.transferEncoding] == nil,
            fields[.contentLength] == nil || fields[.contentLength] == "0"
        else { return nil }
        return served
    }

    private func answer(_ request: HTTPRequest, from served: ServedFiles, context: ChannelHandlerContext) {
        let answer = WellKnownAnswer(
            served: served, authority: request.authority, headers: request.headerFields,
            isHead: request.method == .head)
        var head = HTTPResponse(status: answer.status, headerFields: answer.headers)
        // What Hummingbird's responder adds to every answer of the router's.
        head.headerFields[.date] = date.now()
        head.headerFields[.server] = serverName
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        // As Hummingbird's connection loop does: `Connection: close` ends the connection.
        if request.headerFields[.connection] == "close" {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), made again only when the second changes.
struct HTTPDate {
    private var second = 0
    private var text = ""

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    mutating func now() -> String {
        var now = time(nil)
        if now != second || text.isEmpty {
            second = now
            var parts = tm()
            gmtime_r(&now, &parts)
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            text =
                "\(Self.days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(Self.months[Int(parts.tm_mon)]) "
                + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        }
        return text
    }
}
