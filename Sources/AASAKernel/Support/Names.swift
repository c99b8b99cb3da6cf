import AASAModel
import AASAStore
import Foundation
import Logging

/// Names in paths and bodies, checked the same way everywhere.
package enum Names {
    package static func teamProblem(_ name: String) -> String? {
        let ok =
            !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            && name.utf8.first != 0x2D
        return ok ? nil : "a team name is 1 to 63 lower-case letters, digits and hyphens, not starting with a hyphen"
    }

    /// The punycode form of a host given in a path; a host that cannot be one is simply not found.
    package static func pathHost(_ host: String) throws -> String {
        guard let normalized = try? HostName.normalized(host) else { throw ServiceError.notFound("no domain \(host)") }
        return normalized
    }

    /// A new domain's host in a body (`/host`), as Apple would take it in an entitlement: 422 naming
    /// `/host` for an IP literal, a single label, localhost or a name that is not a host.
    package static func domainHost(_ host: String) throws -> String {
        do { return try HostName.associatedDomain(host) } catch {
            throw ServiceError.invalid(field: "/host", rule: "host", "\(host): \(error)")
        }
    }

    /// A `limit` query parameter within the bounds openapi.yaml declares (the generated code does not check them).
    package static func limit(_ value: Int?, default fallback: Int, maximum: Int = 500) throws -> Int {
        guard let value else { return fallback }
        guard (1...maximum).contains(value) else {
            throw ServiceError.badRequest("limit is between 1 and \(maximum)", field: "limit", rule: "range")
        }
        return value
    }

    /// A revision page's `before` (openapi.yaml's minimum 1; the generated code does not check it).
    package static func before(_ value: Int32?) throws -> Int? {
        guard let value else { return nil }
        guard value >= 1 else {
            throw ServiceError.badRequest("before is a revision number, 1 or more", field: "before", rule: "minimum")
        }
        return Int(value)
    }

    /// A display name or token name within openapi.yaml's `maxLength` (200 characters).
    package static func displayName(_ name: String, field: String) throws -> String {
        guard name.count <= 200 else {
            throw ServiceError.badRequest("a name is at most 200 characters", field: field, rule: "maxLength")
        }
        return name
    }

    package static func uuid(_ string: String, what: String) throws -> UUID {
        guard let id = UUIDText.parse(string) else { throw ServiceError.notFound("no \(what) \(string)") }
        return id
    }
}
