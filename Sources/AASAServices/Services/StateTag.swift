import AASAKernel
import AASAStore
import Crypto
import Foundation

/// The state a plan was made against (a manifest's or an import's): the versions of everything the
/// apply would write, as lines, and their digest as the plan's tag. An apply sent with the tag as
/// `If-Match` is refused (412) when any of them moved in between, so what is applied is what was
/// planned and proved. Lines are sorted before the digest, so the order of recording is free.
package struct StateTag {
    private var lines: [String] = []

    package init() {}

    /// One row's version, or that it does not exist (a row created later moves the tag too).
    package mutating func record(_ name: String, version: Int64?) {
        lines.append("\(name) \(version.map(String.init) ?? "absent")")
    }

    /// A value that has no version of its own (a domain's related origins), as its text.
    package mutating func record(_ name: String, text: String) {
        lines.append("\(name) \(text)")
    }

    /// An app's version and its rule set's version on each of `domains`.
    package mutating func recordApp(
        _ appID: String, _ app: AppRecord?, on domains: [DomainRecord], session: DBSession
    ) async throws {
        record("app \(appID)", version: app?.version)
        guard let app else { return }
        for domain in domains {
            record(
                "rules \(domain.host) \(appID)",
                version: try await session.ruleSet(domainID: domain.id, app: app).version)
        }
    }

    /// The tag, quoted as an ETag is; `kind` tells a manifest's (`m`) from an import's (`i`).
    package func tag(_ kind: String) -> String {
        let digest = SHA256.hash(data: Data(lines.sorted().joined(separator: "\n").utf8))
        return "\"\(kind)-" + Hex.string(digest.prefix(12)) + "\""
    }
}
