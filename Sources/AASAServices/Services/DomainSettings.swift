import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// A domain's settings as given in a body, checked field by field.
package struct DomainSettings: Sendable {
    package var aliases: [String]
    package var variables: [SubstitutionVariable]
    package var defaults: DomainDefaults
    package var webRoots: [String]
    package var autoPublish: Bool
    package var legacyRootPath: Bool
    /// The environment asked for; nil keeps the domain's (a new domain: the only one there is).
    package var environment: String?

    package init(
        host: String, aliases: [String]?, variables: [String: [String]]?,
        defaults: DomainDefaults?, webRoots: [String]?, autoPublish: Bool?, legacyRootPath: Bool?,
        current: DomainRecord?, bases: [String], environment: String? = nil
    ) throws {
        self.environment = environment
        self.autoPublish = autoPublish ?? current?.autoPublish ?? false
        self.legacyRootPath = legacyRootPath ?? current?.legacyRootPath ?? false
        // An alias kept from before the host rule (issue 24) stays; a new one must be a public DNS name.
        let kept = Set(current?.aliases ?? [])
        self.aliases = try (aliases ?? current?.aliases ?? []).enumerated().map { i, alias in
            do { return kept.contains(alias) ? alias : try HostName.associatedDomain(alias) } catch {
                throw ServiceError.invalid(field: "/aliases/\(i)", rule: "host", "\(alias): \(error)")
            }
        }
        if let i = self.aliases.firstIndex(of: host) {
            throw ServiceError.invalid(
                field: "/aliases/\(i)", rule: "distinct", "an alias cannot be the domain's own host")
        }
        if Set(self.aliases).count != self.aliases.count {
            throw ServiceError.invalid(field: "/aliases", rule: "unique", "an alias is listed twice")
        }
        self.variables =
            variables.map {
                $0.sorted { $0.key < $1.key }.map { SubstitutionVariable(name: $0.key, values: $0.value) }
            }
            ?? current?.substitutionVariables ?? []
        self.defaults =
            defaults.map { DomainDefaults(caseSensitive: $0.caseSensitive, percentEncoded: $0.percentEncoded) }
            ?? current?.defaults ?? DomainDefaults()
        self.webRoots = try (webRoots ?? current?.webRoots ?? []).enumerated().map { i, root in
            try Self.checkedWebRoot(root, field: "/webRoots/\(i)", bases: bases)
        }
    }

    /// A web root as stored (without a trailing `/`), or 422 `web-root` at `field`.
    package static func checkedWebRoot(_ root: String, field: String, bases: [String]) throws -> String {
        if let problem = webRootProblem(root, bases: bases) {
            throw ServiceError.invalid(field: field, rule: "web-root", problem)
        }
        return root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// Web roots are absolute directories named plainly: no `..`, no control characters.
    package static func webRootProblem(_ root: String, bases: [String]) -> String? {
        guard root.hasPrefix("/") else { return "a web root is an absolute path" }
        guard root.utf8.count <= 1024 else { return "a web root is at most 1024 bytes" }
        if root.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a web root has no control characters"
        }
        if root.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) {
            return "a web root has no . or .. components"
        }
        let trimmed = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        if !bases.isEmpty
            && !bases.contains(where: { trimmed == $0 || trimmed.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") })
        {
            return "a web root lies inside \(bases.joined(separator: " or ")) (the server's --web-root-base)"
        }
        return nil
    }
}
