import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// A team's trust rules as a body gives them, and how a rule matches a token's claims.
///
/// A rule names an issuer the organisation trusts, one or more claims, and the scopes it gives
/// (`write`, `read`; never `admin`). It must name the repository (`repository`, GitHub's) or the
/// project (`project_path`, GitLab's) exactly: a rule on `repository_owner` alone would let every
/// repository of the owner in, and a wildcard there would do the same. Other claims match
/// exactly, or by prefix where the rule's value ends in `*` (`ref: refs/tags/v*`).
package enum TrustRuleInput {
    package static let repositoryClaims = ["repository", "project_path"]

    package struct Item: Sendable {
        package var issuer: String
        package var claims: [String: String]
        package var scopes: [String]

        package init(issuer: String, claims: [String: String], scopes: [String]) {
            self.issuer = issuer
            self.claims = claims
            self.scopes = scopes
        }
    }

    /// Bounds and shapes, before anything is read: 422 naming `/rules/i/…`.
    package static func check(_ items: [Item]) throws -> [TrustRule] {
        var errors: [FieldError] = []
        func fail(_ field: String, _ rule: String, _ message: String) {
            errors.append(FieldError(field: field, rule: rule, message: message))
        }
        if items.count > 50 { fail("/rules", "maxItems", "at most 50 rules") }
        var rules: [TrustRule] = []
        for (i, item) in items.enumerated() {
            let at = "/rules/\(i)"
            if item.issuer.utf8.count > 32 { fail("\(at)/issuer", "maxLength", "at most 32 characters") }
            if item.claims.isEmpty || item.claims.count > 20 {
                fail("\(at)/claims", "size", "a rule names 1 to 20 claims")
            }
            for (name, value) in item.claims.sorted(by: { $0.key < $1.key }) {
                let field = at + (JSONPointer.root / "claims" / name).description
                if name.utf8.count > 64 || value.utf8.count > 255 || value.isEmpty {
                    fail(field, "maxLength", "a claim's name is at most 64 characters, its value 1 to 255")
                }
            }
            let repository = repositoryClaims.compactMap { item.claims[$0] }
            if repository.isEmpty {
                fail(
                    "\(at)/claims", "repository-required",
                    "a rule names the repository (repository) or the project (project_path): an owner alone lets "
                        + "every one of its repositories in")
            } else if repository.contains(where: { $0.contains("*") }) {
                fail(
                    "\(at)/claims", "repository-exact",
                    "the repository or project is named exactly, with no *: a pattern there lets other repositories in")
            }
            let scopes = item.scopes.compactMap(TokenScope.init(rawValue:))
            if item.scopes.isEmpty || scopes.count != item.scopes.count || scopes.contains(.admin)
                || Set(scopes).count != scopes.count
            {
                fail("\(at)/scopes", "scopes", "a rule gives write, read, or both (never admin), each once")
            }
            rules.append(TrustRule(issuer: item.issuer, claims: item.claims, scopes: scopes.sorted()))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return rules
    }

    /// Whether every claim the rule names matches the token's.
    package static func matches(_ rule: TrustRule, _ claims: [String: String]) -> Bool {
        rule.claims.allSatisfy { name, pattern in
            guard let value = claims[name] else { return false }
            if pattern.hasSuffix("*") && !repositoryClaims.contains(name) {
                return value.hasPrefix(pattern.dropLast())
            }
            return value == pattern
        }
    }
}
