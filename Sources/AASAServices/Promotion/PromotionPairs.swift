import AASAKernel
import AASAOutbound
import AASARules
import AASAStore

/// Which domain of the source environment each domain of the target environment takes its rules
/// from. Named pairs (`SOURCE=TARGET`, or just `TARGET`) win; otherwise by the hosts' shape: a
/// target `example.com` pairs with `staging.example.com`, and `staging.example.com` with
/// `dev.example.com` (the environment's name as the first label).
package struct PromotionPairs: Sendable {
    package struct Pair: Sendable {
        package var source: DomainRecord
        package var target: DomainRecord
    }

    package var pairs: [Pair]
    /// Target domains for which no source domain was found (left as they are).
    package var unpaired: [String]

    package static func find(
        from: String, to: String, named: [(source: String?, target: String)], session: DBSession
    ) async throws -> PromotionPairs {
        let domains = try await session.listDomains()
        let sources = Dictionary(
            domains.filter { $0.environment == from }.map { ($0.host, $0) }, uniquingKeysWith: { a, _ in a })
        let targets = domains.filter { $0.environment == to }
        func conventional(_ target: DomainRecord) -> DomainRecord? {
            if let s = sources["\(from).\(target.host)"] { return s }
            if target.host.hasPrefix("\(to).") { return sources["\(from)." + target.host.dropFirst(to.count + 1)] }
            return nil
        }
        guard !named.isEmpty else {
            var pairs: [Pair] = []
            var unpaired: [String] = []
            for target in targets {
                if let source = conventional(target) {
                    pairs.append(Pair(source: source, target: target))
                } else {
                    unpaired.append(target.host)
                }
            }
            return PromotionPairs(pairs: pairs, unpaired: unpaired)
        }
        var pairs: [Pair] = []
        for (i, entry) in named.enumerated() {
            let field = "/domains/\(i)"
            guard let target = domains.first(where: { $0.host == entry.target }) else {
                throw ServiceError.invalid(field: field, rule: "exists", "there is no domain \(entry.target)")
            }
            guard target.environment == to else {
                throw ServiceError.invalid(
                    field: field, rule: "environment",
                    "\(target.host) belongs to \(target.environment), not to \(to)")
            }
            let source: DomainRecord
            if let host = entry.source {
                guard let found = domains.first(where: { $0.host == host }) else {
                    throw ServiceError.invalid(field: field, rule: "exists", "there is no domain \(host)")
                }
                guard found.environment == from else {
                    throw ServiceError.invalid(
                        field: field, rule: "environment", "\(host) belongs to \(found.environment), not to \(from)")
                }
                source = found
            } else {
                guard let found = conventional(target) else {
                    throw ServiceError.invalid(
                        field: field, rule: "source",
                        "\(target.host) has no domain in \(from) to take rules from (tried \(from).\(target.host)); "
                            + "name it as SOURCE=\(target.host)")
                }
                source = found
            }
            if pairs.contains(where: { $0.target.id == target.id }) {
                throw ServiceError.invalid(field: field, rule: "unique", "\(target.host) is named twice")
            }
            pairs.append(Pair(source: source, target: target))
        }
        return PromotionPairs(pairs: pairs, unpaired: [])
    }
}
