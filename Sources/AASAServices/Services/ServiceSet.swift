import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// What the API's handlers reach the store through, built once by `buildApplication`: a
/// request's reads and writes (`RequestWork`), and the schema check of readiness.
package struct ServiceSet: Sendable {
    package let database: Database
    package let migrator: Migrator
    private let schemaWatch = SchemaWatch()

    package init(database: Database, migrator: Migrator) {
        self.database = database
        self.migrator = migrator
    }

    package func work(_ logger: Logger) -> RequestWork {
        RequestWork(database: database, logger: logger)
    }

    /// Whether this build can run on the database's migrations; a newer release's migration is
    /// logged the first time it is seen.
    package func migrationStatus(_ logger: Logger) async throws -> Migrator.Status {
        let status = try await work(logger).read { try await migrator.status($0) }
        schemaWatch.note(status, logger)
        return status
    }
}

/// Who may publish a domain: an admin, or a write token of a team holding a grant on it.
/// Checked by the publisher in its transaction, on the locked domain.
package enum PublishRights {
    package static func check(_ principal: Principal) -> @Sendable (DBSession, DomainRecord) async throws -> Void {
        { session, domain in
            if principal.isAdmin { return }
            guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot publish") }
            guard let teamID = principal.teamID, try await session.grant(domainID: domain.id, teamID: teamID) != nil
            else {
                throw ServiceError.forbidden("only an admin or a team holding a grant on \(domain.host) may publish it")
            }
        }
    }
}
