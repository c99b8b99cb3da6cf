import AASAKernel
import AASAModel
import Metrics
import NIOPosix
import Synchronization

/// The last validated renders, by content: a domain's assembled JSON (and host) → AASAModel's
/// document, bytes, diagnostics and rule analysis. Reads of a draft (`…/aasa`, `…/report`, draft
/// match and diff) and writes that leave a domain's document as it was are answered from here
/// instead of analysing again; the key is the content itself, so an entry can never be stale.
///
/// Validation runs on NIO's thread pool, not on the concurrency pool that serves every other
/// request (the served file included), and stops when the waiting request is cancelled.
package final class ValidatedRenders: Sendable {
    package static let shared = ValidatedRenders()

    package struct Render: Sendable {
        package var document: AASADocument
        package var bytes: [UInt8]
        package var diagnostics: [Diagnostic]
        package var analysis: RuleAnalysis?
        /// The document compiled for matching: golden URLs and protected paths are checked on it.
        package var matcher: AASAMatcher
    }

    private let cache: ContentCache<Render>

    package init(maxEntries: Int = 256, maxBytes: Int = 8 << 20) {
        cache = ContentCache(maxEntries: maxEntries, maxBytes: maxBytes)
    }

    package func validated(_ root: JSONValue, host: String) async throws -> Render {
        let key = ContentCache<Render>.key([Array(host.utf8), JSONWriter().bytes(root)])
        if let hit = cache[key] {
            Counter(label: "aasad_render_cache_total", dimensions: [("outcome", "hit")]).increment()
            return hit
        }
        Counter(label: "aasad_render_cache_total", dimensions: [("outcome", "miss")]).increment()
        let stop = StopFlag()
        let render = try await withTaskCancellationHandler {
            try await NIOThreadPool.singleton.runIfActive { Self.validate(root, host: host, stop: stop) }
        } onCancel: {
            stop.set()
        }
        // A cut-short analysis is not the document's analysis: never kept, never answered.
        if stop.isSet { throw CancellationError() }
        cache.remember(render, bytes: render.bytes.count, key: key)
        return render
    }

    private static func validate(_ root: JSONValue, host: String, stop: StopFlag) -> Render {
        let parsed = AASAParser.read(root)
        let document = parsed.document ?? AASADocument()
        let bytes = AASARenderer.render(document)
        var diagnostics = parsed.diagnostics
        let matcher = AASAMatcher(document)
        let (found, analysis) = AASAValidator.validateWithAnalysis(
            document, servedByteCount: bytes.count, matcher: matcher,
            options: .init(analyzeRules: true, host: host, shouldStop: { stop.isSet }))
        for d in found where !diagnostics.contains(d) { diagnostics.append(d) }
        return Render(document: document, bytes: bytes, diagnostics: diagnostics, analysis: analysis, matcher: matcher)
    }
}

/// Set once, from a cancellation handler; read by the analysis on another thread.
package final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    package func set() { value.store(true, ordering: .relaxed) }
    package var isSet: Bool { value.load(ordering: .relaxed) }
}
