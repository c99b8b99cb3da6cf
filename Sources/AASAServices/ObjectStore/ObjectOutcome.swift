import AASAKernel
import AASAOutbound
import AASARules

/// What one publish (or reconciliation) did at one object-store or purge target, step by step, and
/// what the edge serves afterwards. Kept per target as JSON (`object_target_outcomes`) and answered
/// as is by the publish and `GET /v1/domains/{host}/targets`.
package struct ObjectOutcome: Codable, Sendable, Equatable {
    package struct Step: Codable, Sendable, Equatable {
        /// `written`, `verified` or `purged`.
        package var step: String
        /// The file (`apple-app-site-association`, `assetlinks.json`); nil for a purge.
        package var file: String?
        /// The object key, or what the provider called the purge.
        package var key: String?
        package var ok: Bool
        package var error: String?
    }

    /// One file fetched from the public URL after the purge, as Apple's (or Google's) fetcher would.
    package struct Edge: Codable, Sendable, Equatable {
        package var url: String
        package var file: String
        /// Whether the edge serves this publish's bytes.
        package var servesRevision: Bool
        /// The revision the edge's bytes are, when they are one.
        package var revision: Int?
        package var expected: Int
        /// The probe's finding codes and messages (`redirect`, `content-type`, `html`, `stale`, …).
        package var findings: [Finding]

        package struct Finding: Codable, Sendable, Equatable {
            package var code: String
            package var message: String
        }
    }

    package var target: String
    package var kind: String
    package var ok: Bool
    package var revision: Int?
    package var assetLinksRevision: Int?
    package var steps: [Step] = []
    package var error: String?
    package var edge: [Edge] = []
    /// Set by reconciliation: what was found in the store before it rewrote it.
    package var drift: String?

    package init(target: String, kind: String, ok: Bool = true) {
        self.target = target
        self.kind = kind
        self.ok = ok
    }
}
